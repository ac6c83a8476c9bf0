// How a job with a batch range trains in the replay (`gaptrain simulate --models`):
// its Pollux model says how fast it steps at a given batch and how much a sample at that batch
// is worth at its progress so far. Under the adaptive rule it trains at the batch gaptraind tells
// it (core/launch_instruction.hpp), under a fixed rule at its own. Pure.
#pragma once

#include <optional>

#include "gaptrain/goodput.hpp"
#include "gaptrain/protocol.hpp"
#include "gaptrain/scaling_curve.hpp"
#include "simulator/pollux_models.hpp"
#include "simulator/workload_io.hpp"

namespace gaptrain::sim {

// What a job does per second on its nodes: raw samples, and the progress they make (samples at
// its tuned batch M0, each weighted by its statistical efficiency; Pollux's progress).
struct TrainingRate {
  double samples_per_s = 0.0;
  double progress_per_s = 0.0;
  long global_batch = 0;
};

class BatchTraining {
 public:
  // `spec` must have a batch range; `model` must outlive this.
  BatchTraining(const PolluxModel& model, const JobRow& spec, BatchRule rule);

  // The job's range, a node's micro-step bounded by what its model measured where the mix
  // leaves it open.
  const BatchRange& range() const noexcept { return range_; }
  BatchRule rule() const noexcept { return rule_; }

  // The job's true noise scale once it has made `progress` (samples at M0).
  double noise_scale(double progress) const;

  // The throughput curve its plugin registers (samples/s by node count, 1..max_nodes): at its
  // usual per-node batch ceil(M0 / min_nodes), or, under the global rule, at M0 split over the
  // nodes: what the job would measure.
  ScalingCurve registered_curve(int max_nodes) const;

  // On `nodes` nodes at `progress`: under a fixed rule its own batch; under adaptive `told`,
  // the batch gaptraind instructed (the usual per-node batch before it was told any).
  TrainingRate rate(int nodes, double progress,
                    const std::optional<protocol::InstructedBatch>& told) const;

 private:
  const PolluxModel* model_;
  BatchRange range_;
  int min_nodes_;
  BatchRule rule_;
};

}  // namespace gaptrain::sim
