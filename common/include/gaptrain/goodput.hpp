// Goodput (Pollux, OSDI'21): what a node count is worth to a job whose batch may grow
// with it. A larger global batch keeps more nodes busy per step but each sample then teaches
// less: statistical efficiency (phi + M0) / (phi + M), phi the gradient noise scale. The
// allocator is given, instead of a job's raw throughput curve, its goodput curve: for each node
// count the best of throughput x efficiency over the batches the job allows (samples at its tuned
// batch M0 per second). The allocator itself is unchanged, so it stays exact. Pure functions.
#pragma once

#include <map>

#include "gaptrain/scaling_curve.hpp"

namespace gaptrain {

// The batch sizes a job may train at (sbatch --elastic-batch / gaptrain submit --batch
// M0:MAX[:PERNODE]).
struct BatchRange {
  int tuned = 0;         // M0: the global batch its hyper-parameters were tuned at (>= 1)
  int max = 0;           // the largest global batch it may train at (>= tuned)
  int max_per_node = 0;  // the most samples one node's micro-step holds; 0: ceil(tuned / min_nodes)

  friend bool operator==(const BatchRange&, const BatchRange&) = default;
};

// How a job's global batch follows its node count: adaptive (gaptrain's: the best goodput),
// per_node (each node keeps ceil(M0 / min_nodes): the usual torchrun script), global (M0 at any
// size).
enum class BatchRule { adaptive, per_node, global };

// The time of one step of n nodes at per-node micro-batch m with s micro-steps (gradient
// accumulation): T = s * (fixed_s + per_sample_s * m) + sync_s(n), sync_s(1) = 0, linear between
// the node counts given, flat beyond the last.
struct StepTimeModel {
  double fixed_s = 0.0;
  double per_sample_s = 0.0;
  std::map<int, double> sync_s;  // node count -> the all-reduce's seconds per step

  double sync_at(int nodes) const;
  // n * m * s / T: samples per second.
  double samples_per_s(int nodes, int per_node, int accumulation) const;
  // The model of a curve measured at `per_node_batch` samples a node and step, with no fixed
  // cost (nothing measured separates it from the per-sample cost): per_sample_s = 1 / S(1), and
  // what the curve loses against linear scaling is the all-reduce, sync_s(n) = per_node_batch *
  // (n / S(n) - 1 / S(1)), never below 0. Its samples_per_s at that batch gives the curve back.
  static StepTimeModel from_curve(const ScalingCurve& curve, int per_node_batch);
};

// (phi + M0) / (phi + M): what a sample at global batch M is worth against one at M0.
double statistical_efficiency(double noise_scale, double tuned, double global);
// AdaScale's gain (var + sqr) / (var / s + sqr) with s = M / M0, which is s * efficiency.
double adascale_gain(double noise_scale, double tuned, double global);

struct BatchChoice {
  int nodes = 0;
  long global = 0;  // = nodes * per_node * accumulation
  int per_node = 0;
  int accumulation = 1;
  double samples_per_s = 0.0;
  double efficiency = 1.0;
  double goodput = 0.0;  // samples_per_s * efficiency: samples at M0 per second
  double lr_gain = 1.0;  // AdaScale's gain at `global`
};

// The micro-step bound of `range` for a job of at least `min_nodes` nodes.
int max_per_node(const BatchRange& range, int min_nodes);

// The batch `rule` gives `nodes` nodes. adaptive: the best goodput over about 50 geometric
// candidates in [tuned, max] (both included), each split over the nodes with the fewest
// micro-steps that keep a node's share within max_per_node. A count that cannot give every node
// a sample of the largest batch trains on as many nodes as can (the others add nothing).
BatchChoice choose_batch(const StepTimeModel& model, const BatchRange& range, int min_nodes,
                         double noise_scale, int nodes, BatchRule rule);

// The curve the allocator is given for a job with a batch range: choose_batch's goodput (under
// adaptive; under a fixed rule its raw throughput, what such a job reports) at every count to 64,
// then about 32 counts per doubling up to max_nodes.
ScalingCurve goodput_curve(const StepTimeModel& model, const BatchRange& range, int min_nodes,
                           int max_nodes, double noise_scale, BatchRule rule);

}  // namespace gaptrain
