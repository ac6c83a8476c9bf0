// The plugin's arguments from plugstack.conf ("controller=HOST:PORT munge_socket=PATH
// timeout_ms=N"). Parsing never fails: a bad argument is reported and ignored, because a
// SPANK plugin that fails its init can take slurmd down with it.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gaptrain/wire_client.hpp"

namespace gaptrain::plugin {

struct PluginConfig {
  std::optional<wire::Endpoint> controller;  // empty: the plugin is inert
  std::string munge_socket;                  // empty: munged's default socket
  std::chrono::milliseconds timeout{50};     // per message, munge seal to reply
};

struct ParsedArgs {
  PluginConfig config;
  std::vector<std::string> errors;  // one line each, for the log
};

// Bounds for timeout_ms: a prolog waits this long at most when the controller is slow.
inline constexpr long kMaxTimeoutMs = 10'000;

ParsedArgs parse_plugin_args(const std::vector<std::string_view>& args);

}  // namespace gaptrain::plugin
