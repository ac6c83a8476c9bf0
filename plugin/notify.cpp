#include "notify.hpp"

#include <json/json.h>

#include <exception>
#include <memory>

#include "gaptrain/munge_envelope.hpp"
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
    std::string credential;
    try {
      credential = munge::seal(protocol::encode(request), config.munge_socket);
    } catch (const munge::MungeError& e) {
      return {false, e.what()};
    }
    const wire::Reply reply = wire::request(*config.controller, credential, config.timeout);
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
