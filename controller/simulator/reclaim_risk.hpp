// The regular workload takes nodes back at times no plan shows (a new job backfilled into the
// hole, a reservation): every node an elastic job holds is a node through which it can be hit.
// A reclaim stalls the job for its shrink cost at its whole rate, and one on the batch host
// costs a restart, so a job's expected rate on n nodes is
//
//     S(n) * (1 - hazard * (n * down + up))
//
// with `hazard` the reclaims per idle node-second seen so far. The penalty grows like n^2: it
// spreads nodes over jobs so one reclaim hits a small job, not a large one — which BFTrainer's
// model, seeing only the horizon, does not know. Pure.
#pragma once

#include <optional>

#include "gaptrain/scaling_curve.hpp"

namespace gaptrain::sim {

// `curve` discounted by the expected reclaim losses, sampled at every node count up to 16 and
// then at steps of an eighth, up to `max_nodes` (the penalty bends the curve, so the allocator's
// piecewise-linear view needs more points than the measurements). hazard <= 0 returns `curve`.
// Empty when the expected losses eat the whole rate even on one node: the job is worth nothing
// (a curve holds no rate of 0, scaling_curve.hpp). Where they eat it only on more nodes, the
// rate there is a billionth of the job's, worth nothing next to its rate on fewer nodes.
std::optional<ScalingCurve> reclaim_adjusted(const ScalingCurve& curve, int max_nodes,
                                             double hazard_per_node_s, double up_cost_s,
                                             double down_cost_s);

// Counts what reclaims the regular workload made so far: holes that ended per idle node-second.
class ReclaimHazard {
 public:
  void add_idle_node_seconds(double node_seconds) { idle_node_seconds_ += node_seconds; }
  void add_hole_end() { ++hole_ends_; }
  // Reclaims per idle node-second; 0 until a few holes ended (no evidence, no penalty).
  double per_node_second() const;

 private:
  double idle_node_seconds_ = 0.0;
  long long hole_ends_ = 0;
};

}  // namespace gaptrain::sim
