// A munge credential within a deadline. libmunge has no timeout of its own: against a munged
// that accepts and never answers it retries for 10-15 s, and a prolog, an epilog or the batch
// step's start would wait that long. The plugin's budget for a message (plugin_args.hpp
// timeout_ms, 50 ms by default) covers the seal too.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

namespace gaptrain::plugin {

struct Sealed {
  bool ok = false;
  std::string text;  // the credential, or why there is none (one line)
};

// Seals `payload` with munged at `socket_path` ("" default) in a child process, given up (and
// the child killed) at `deadline`. Never throws.
Sealed seal_within(std::string_view payload, const std::string& socket_path,
                   std::chrono::steady_clock::time_point deadline) noexcept;

}  // namespace gaptrain::plugin
