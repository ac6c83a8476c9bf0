// Sends plugin events to gaptraind as the SPANK plugin does (plugin::notify: encode, seal with
// munge, one line over TCP, one line back within the plugin's timeout), from several threads
// at once, as fast as they can: the epilogs or prologs of thousands of nodes at the same time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "notify.hpp"
#include "simulated_slurm.hpp"

namespace gaptrain::bench {

struct SendStats {
  std::size_t sent = 0;
  std::size_t accepted = 0;
  std::size_t rejected = 0;        // the daemon answered no
  std::size_t undelivered = 0;     // no answer within the timeout (or no connection)
  std::string first_failure;       // the first rejection's or failure's message
  double seconds = 0.0;            // from the first send to the last reply
  std::vector<double> latency_ms;  // per event, connect to reply
};

// node_freed (freed) or node_taken (!freed) for every event, by `senders` threads.
SendStats send_node_events(const std::vector<NodeEvent>& events, bool freed, int senders,
                           const plugin::PluginConfig& config);

}  // namespace gaptrain::bench
