#include "plugin_args.hpp"

#include <array>
#include <charconv>
#include <set>

#include "gaptrain/parse_number.hpp"

namespace gaptrain::plugin {
namespace {

// Each key with its own parser; a parser returns what the key allows when `value` is bad, and
// "" when it stored the value.
using ArgParser = std::string (*)(std::string_view value, PluginConfig& config);

std::string parse_controller(std::string_view value, PluginConfig& config) {
  config.controller = wire::parse_endpoint(value);
  return config.controller ? "" : "HOST:PORT of gaptraind, e.g. controller=10.0.0.5:6830";
}

std::string parse_munge_socket(std::string_view value, PluginConfig& config) {
  if (!value.starts_with('/'))
    return "an absolute path, e.g. munge_socket=/run/munge/munge.socket.2";
  config.munge_socket = std::string(value);
  return "";
}

std::string parse_timeout_ms(std::string_view value, PluginConfig& config) {
  const std::optional<long> ms = gaptrain::parse_number<long>(value);
  if (!ms || *ms < 1 || *ms > kMaxTimeoutMs) {
    return "whole milliseconds from 1 to " + std::to_string(kMaxTimeoutMs) + ", e.g. timeout_ms=50";
  }
  config.timeout = std::chrono::milliseconds(*ms);
  return "";
}

struct ArgSpec {
  std::string_view key;
  ArgParser parse;
};

constexpr std::array kArgs{
    ArgSpec{"controller", parse_controller},
    ArgSpec{"munge_socket", parse_munge_socket},
    ArgSpec{"timeout_ms", parse_timeout_ms},
};

constexpr std::string_view kKnownKeys = "controller=, munge_socket=, timeout_ms=";

const ArgSpec* find_arg(std::string_view key) {
  for (const ArgSpec& spec : kArgs) {
    if (spec.key == key) return &spec;
  }
  return nullptr;
}

std::string refusal(std::string_view arg, std::string_view why) {
  return "gaptrain: plugstack.conf argument \"" + std::string(arg) + "\": " + std::string(why) +
         "; the plugin is not loaded";
}

}  // namespace

ParsedArgs parse_plugin_args(const std::vector<std::string_view>& args) {
  ParsedArgs parsed;
  std::set<std::string_view> seen;
  for (const std::string_view arg : args) {
    const std::size_t eq = arg.find('=');
    if (eq == std::string_view::npos) {
      parsed.error = refusal(arg, "expected KEY=VALUE with KEY one of " + std::string(kKnownKeys));
      return parsed;
    }
    const std::string_view key = arg.substr(0, eq);
    const ArgSpec* spec = find_arg(key);
    if (spec == nullptr) {
      parsed.error = refusal(arg, "unknown key; known: " + std::string(kKnownKeys));
      return parsed;
    }
    if (!seen.insert(spec->key).second) {
      parsed.error = refusal(arg, std::string(key) + "= is given more than once");
      return parsed;
    }
    if (const std::string allowed = spec->parse(arg.substr(eq + 1), parsed.config);
        !allowed.empty()) {
      parsed.error = refusal(arg, std::string(key) + "= expects " + allowed);
      return parsed;
    }
  }
  return parsed;
}

}  // namespace gaptrain::plugin
