// The launcher's decision, kept pure so it is tested without Slurm: given the steps it has and
// the controller's latest instruction, which steps to start, stop or drop, and which drain
// requests are done (the acks of the two-phase shrink, docs/design.md).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "gaptrain/protocol.hpp"

namespace gaptrain::launch {

enum class StepPhase {
  running,   // its srun is alive
  stopping,  // asked to stop (drained, or its node left the job); its srun is still alive
  waiting,   // it failed and waits out its restart backoff
  done,      // it exited 0: the training finished there (unless its node leaves the job: then
             // the node failed), it is never restarted
};

struct StepView {
  std::string node;
  StepPhase phase = StepPhase::running;
  bool restart_due = false;  // waiting: the backoff is over
};

struct Actions {
  std::vector<std::string> start;  // start (or restart) a step on these nodes, in this order
  std::vector<std::string> stop;   // stop these running steps
  // Drop these steps: waiting ones whose node is not wanted now, done ones whose node left the
  // job (lost with a failed node, so the training did not finish).
  std::vector<std::string> forget;
  std::vector<std::string> drained;  // drain requests with no live step left: report as acks
};

// `instruction.nodes` is the job's allocation (batch host first), `instruction.drain` the nodes
// to give back. A node is wanted when it is in `nodes` and not in `drain`. `finishing`: a step
// already exited 0, so the training is over and nothing new starts. At most one entry of
// `steps` per node.
Actions reconcile(const std::vector<StepView>& steps,
                  const protocol::LaunchInstruction& instruction, bool finishing);

// The nodes with a live step, for the report's "running": those running and those asked to stop
// that have not ended yet (gaptraind waits for these before it takes a drained node: reporting
// them gone had it take the node, and kill the step, at its next act).
// The nodes of `instruction` not in its drain, in its order (batch host first): those the job
// trains on, what the host file lists.
std::vector<std::string> wanted_nodes(const protocol::LaunchInstruction& instruction);

std::vector<std::string> live_nodes(const std::vector<StepView>& steps);

// The notices (node -> Unix time) to tell the steps of: those not told yet and those whose time
// moved by a second or more since (gaptraind's own rule: a deadline recomputed to the
// millisecond is the same notice, and was said again at every poll). `told` becomes what the
// steps know: the time said for each node still noticed (a withdrawn notice is forgotten, so a
// later one is told).
std::vector<std::string> notices_to_tell(std::map<std::string, double>& told,
                                         const std::map<std::string, double>& notice);

}  // namespace gaptrain::launch
