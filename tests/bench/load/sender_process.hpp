// The event senders in a process of their own. plugin::notify seals each event in a forked
// child (the plugin's budget on libmunge); forked from the bench's own process, every fork
// made the daemon's thread pay copy-on-write faults for each page it wrote afterwards, a cost
// that grows with the daemon's memory traffic and that no real gaptraind pays (the plugin runs
// in slurmd's and slurmstepd's processes). So the bench forks this process once, before the
// daemon's thread starts, and hands it each burst over a pipe.
#pragma once

#include <sys/types.h>

#include <vector>

#include "event_senders.hpp"

namespace gaptrain::bench {

class SenderProcess {
 public:
  // Forks the sender process; the calling process must have no other thread yet.
  SenderProcess(int senders, const plugin::PluginConfig& config);
  ~SenderProcess();  // ends it (end of input) and waits for it
  SenderProcess(const SenderProcess&) = delete;
  SenderProcess& operator=(const SenderProcess&) = delete;

  // send_node_events(events, freed, ...) run in the sender process; what it measured.
  SendStats send(const std::vector<NodeEvent>& events, bool freed);

 private:
  pid_t pid_ = -1;
  int to_child_ = -1;
  int from_child_ = -1;
};

}  // namespace gaptrain::bench
