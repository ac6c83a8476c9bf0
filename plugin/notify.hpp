// Sends one protocol message to gaptraind: encode, seal with munge, one line over TCP, read the
// one-line reply. Never throws: the plugin fails open and only logs the outcome.
#pragma once

#include <string>
#include <string_view>

#include "gaptrain/protocol.hpp"
#include "plugin_args.hpp"

namespace gaptrain::plugin {

struct Outcome {
  bool ok = false;
  std::string message;  // why not, one line (empty when ok)
};

// {"ok":true,...} -> ok; {"ok":false,"error":"..."} -> not ok with the error; anything else ->
// not ok, "unexpected reply".
Outcome interpret_reply(std::string_view reply) noexcept;

Outcome notify(const PluginConfig& config, const protocol::Request& request) noexcept;

}  // namespace gaptrain::plugin
