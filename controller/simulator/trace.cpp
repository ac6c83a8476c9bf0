#include "simulator/trace.hpp"

#include <cstddef>

namespace gaptrain::sim {

void fill_actual_ends(HoleTrace& trace) {
  // Walking backwards, the node's next busy update is the last one seen; every idle update
  // before it (a new hole, or the same hole with a new prediction) ends there.
  std::vector<double> next_busy_s(trace.node_names.size(), kUnknownEnd);
  for (auto step = trace.steps.rbegin(); step != trace.steps.rend(); ++step) {
    for (NodeUpdate& update : step->updates) {
      double& next_busy = next_busy_s.at(static_cast<std::size_t>(update.node));
      if (update.idle) {
        update.actual_end_s = next_busy;
      } else {
        next_busy = step->time_s;
      }
    }
  }
}

}  // namespace gaptrain::sim
