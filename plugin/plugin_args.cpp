#include "plugin_args.hpp"

#include <charconv>

namespace gaptrain::plugin {

ParsedArgs parse_plugin_args(const std::vector<std::string_view>& args) {
  ParsedArgs parsed;
  for (const std::string_view arg : args) {
    const std::size_t eq = arg.find('=');
    const std::string_view key = arg.substr(0, eq);
    const std::string_view value =
        eq == std::string_view::npos ? std::string_view{} : arg.substr(eq + 1);
    const std::string shown = "\"" + std::string(arg) + "\"";
    if (eq == std::string_view::npos) {
      parsed.errors.push_back("gaptrain: ignoring plugin argument " + shown +
                              " (expected KEY=VALUE)");
    } else if (key == "controller") {
      parsed.config.controller = wire::parse_endpoint(value);
      if (!parsed.config.controller) {
        parsed.errors.push_back("gaptrain: ignoring plugin argument " + shown +
                                " (expected controller=HOST:PORT); node events are off");
      }
    } else if (key == "munge_socket") {
      parsed.config.munge_socket = std::string(value);
    } else if (key == "timeout_ms") {
      long ms = 0;
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), ms);
      if (ec != std::errc() || end != value.data() + value.size() || ms < 1 || ms > kMaxTimeoutMs) {
        parsed.errors.push_back("gaptrain: ignoring plugin argument " + shown + " (expected 1.." +
                                std::to_string(kMaxTimeoutMs) + " milliseconds); using " +
                                std::to_string(parsed.config.timeout.count()));
      } else {
        parsed.config.timeout = std::chrono::milliseconds(ms);
      }
    } else {
      parsed.errors.push_back("gaptrain: ignoring unknown plugin argument " + shown +
                              " (known: controller=, munge_socket=, timeout_ms=)");
    }
  }
  return parsed;
}

}  // namespace gaptrain::plugin
