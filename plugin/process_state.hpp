// What every context of the plugin shares within one process: the plugstack.conf arguments
// (read once, failing closed), the catch-all boundary towards Slurm, and sending a message to
// gaptraind with one log line about the outcome (failing open).
#pragma once

#include <slurm/spank.h>

#include <cstdint>
#include <exception>

#include "gaptrain/protocol.hpp"
#include "plugin_args.hpp"

namespace gaptrain::plugin {

// The plugstack.conf arguments of this process, valid once load_plugin_args returned true.
const PluginConfig& plugin_config();

// Reads the arguments into plugin_config(): 0, or -1 after one slurm_error line (when
// `log_refusal`) for bad ones, and the caller refuses to load (SPANK's convention).
int load_plugin_args(int ac, char** av, bool log_refusal) noexcept;

// Sends `request` to gaptraind and logs one line when it did not go through; the caller then
// carries on (the job runs as it would without the plugin).
void deliver(const protocol::Request& request, std::uint32_t job_id, const char* node);

// Runs `body` and returns its result, or `on_exception` after logging `what_failed` when it
// throws: no exception may cross into Slurm, which is C.
template <typename Body>
int guarded(const char* what_failed, int on_exception, Body&& body) noexcept {
  try {
    return body();
  } catch (const std::exception& e) {
    slurm_error("gaptrain: %s: %s", what_failed, e.what());
  } catch (...) {
    slurm_error("gaptrain: %s", what_failed);
  }
  return on_exception;
}

}  // namespace gaptrain::plugin
