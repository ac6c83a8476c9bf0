// Placeholder until wip-gsim's model is merged: the batch range only, as the goodput contract
// (issue 30) defines it.
#pragma once

namespace gaptrain {

// The batch sizes a job may train at (sbatch --elastic-batch / gaptrain submit --batch
// M0:MAX[:PERNODE]).
struct BatchRange {
  int tuned = 0;         // M0: the global batch its hyper-parameters were tuned at (>= 1)
  int max = 0;           // the largest global batch it may train at (>= tuned)
  int max_per_node = 0;  // the most samples one node's micro-step holds; 0: ceil(tuned / min_nodes)

  friend bool operator==(const BatchRange&, const BatchRange&) = default;
};

}  // namespace gaptrain
