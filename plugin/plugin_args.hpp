// The plugin's arguments from plugstack.conf ("controller=HOST:PORT munge_socket=PATH
// timeout_ms=N"). They fail closed: an unknown key, a repeated key or a bad value is one error
// line naming the key and what it allows, and the plugin refuses to load (slurm_spank_init
// fails) instead of running with node events silently off. This is the admin's configuration,
// read once per process; the run-time path (gaptraind down or slow) still fails open.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gaptrain/wire_client.hpp"

namespace gaptrain::plugin {

struct PluginConfig {
  std::optional<wire::Endpoint> controller;  // empty: no events are sent (options only)
  std::string munge_socket;                  // empty: munged's default socket
  std::chrono::milliseconds timeout{50};     // per message, munge seal to reply
};

struct ParsedArgs {
  PluginConfig config;  // meaningful only when error is empty
  std::string error;    // the first bad argument, one line for the log; empty when all are good
};

// Bounds for timeout_ms: a prolog waits this long at most when the controller is slow.
inline constexpr long kMaxTimeoutMs = 10'000;

ParsedArgs parse_plugin_args(const std::vector<std::string_view>& args);

}  // namespace gaptrain::plugin
