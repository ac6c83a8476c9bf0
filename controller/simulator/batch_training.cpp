#include "simulator/batch_training.hpp"

#include <algorithm>
#include <stdexcept>

namespace gaptrain::sim {

BatchTraining::BatchTraining(const PolluxModel& model, const JobRow& spec, BatchRule rule)
    : model_(&model), range_(spec.batch.value()), min_nodes_(spec.min_nodes), rule_(rule) {
  if (range_.max_per_node == 0) {
    // What fits a node, but never less than the job's usual per-node batch: a mix that tunes
    // a job beyond its model's measurements still runs it as tuned.
    range_.max_per_node =
        std::max(model.max_local_batch, (range_.tuned + min_nodes_ - 1) / min_nodes_);
  }
}

double BatchTraining::noise_scale(double progress) const {
  return model_->noise.at(progress);
}

ScalingCurve BatchTraining::registered_curve(int max_nodes) const {
  // The noise scale does not change a curve of raw samples.
  const BatchRule measured = rule_ == BatchRule::global ? BatchRule::global : BatchRule::per_node;
  return goodput_curve(model_->step_time, range_, min_nodes_, max_nodes, 0.0, measured);
}

TrainingRate BatchTraining::rate(int nodes, double progress,
                                 const std::optional<protocol::InstructedBatch>& told) const {
  if (nodes <= 0) return {};
  const double phi = noise_scale(progress);
  if (rule_ != BatchRule::adaptive || !told) {
    const BatchRule own = rule_ == BatchRule::adaptive ? BatchRule::per_node : rule_;
    const BatchChoice c = choose_batch(model_->step_time, range_, min_nodes_, phi, nodes, own);
    return {c.samples_per_s, c.goodput, c.global};
  }
  // The instruction's batch on the nodes that get a share of it (all of them, unless the batch
  // is smaller than the node count).
  const long share =
      static_cast<long>(std::max(1, told->per_node)) * std::max(1, told->accumulation);
  const int used = static_cast<int>(std::clamp<long>((told->global + share - 1) / share, 1, nodes));
  const double samples = model_->step_time.samples_per_s(used, told->per_node, told->accumulation);
  const double efficiency =
      statistical_efficiency(phi, range_.tuned, static_cast<double>(told->global));
  return {samples, samples * efficiency, told->global};
}

}  // namespace gaptrain::sim
