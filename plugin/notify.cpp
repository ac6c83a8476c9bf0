#include "notify.hpp"

#include <json/json.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <memory>

#include "bounded_seal.hpp"
#include "gaptrain/wire_client.hpp"

namespace gaptrain::plugin {

Outcome interpret_reply(std::string_view reply) noexcept {
  try {
    Json::CharReaderBuilder builder;
    const std::unique_ptr<Json::CharReader> reader(builder.newCharReader());
    Json::Value value;
    std::string errors;
    if (reader->parse(reply.data(), reply.data() + reply.size(), &value, &errors) &&
        value.isObject() && value["ok"].isBool()) {
      if (value["ok"].asBool()) return {true, ""};
      const Json::Value& error = value["error"];
      return {false, "controller refused: " +
                         (error.isString() ? error.asString() : std::string("(no reason)"))};
    }
    return {false, "unexpected reply: " + std::string(reply.substr(0, 120))};
  } catch (...) {
    return {false, "unexpected reply"};
  }
}

Outcome notify(const PluginConfig& config, const protocol::Request& request) noexcept {
  try {
    if (!config.controller) return {false, "no controller configured"};
    // One budget for the whole message, the seal included: a hung munged must not hold up a
    // prolog, an epilog or a batch step's start any longer than a slow controller may.
    const auto start = std::chrono::steady_clock::now();
    const Sealed sealed =
        seal_within(protocol::encode(request), config.munge_socket, start + config.timeout);
    if (!sealed.ok) return {false, sealed.text};
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        start + config.timeout - std::chrono::steady_clock::now());
    const wire::Reply reply = wire::request(*config.controller, sealed.text,
                                            std::max(left, std::chrono::milliseconds(1)));
    if (!reply.delivered) return {false, reply.text};
    return interpret_reply(reply.text);
  } catch (const std::exception& e) {
    try {
      return {false, e.what()};
    } catch (...) {
      return {false, {}};
    }
  } catch (...) {
    return {false, {}};
  }
}

}  // namespace gaptrain::plugin
