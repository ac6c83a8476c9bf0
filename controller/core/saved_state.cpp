#include "core/saved_state.hpp"

namespace gaptrain::core {

SavedJob saved_job(const ElasticJob& job) {
  SavedJob saved;
  saved.uid = job.uid;
  saved.registered_at = job.registered_at;
  // The registration as given, with the batch host Slurm shows now, and each node type a curve
  // is being learned on (a restarted gaptraind learns it there again, from the prior).
  saved.registration = job.given;
  saved.registration.batch_host = job.batch_host;
  for (const auto& [type, typed] : job.curves) {
    if (typed.source != Source::given) saved.registration.curves[type] = std::nullopt;
  }
  if (job.curves.empty() && job.curve_source == Source::learned) saved.learned_curve = job.curve;
  saved.learned_noise_scale = job.learned_noise_scale;
  if (job.costs_source == Source::learned) saved.learned_costs = {job.up_cost_s, job.down_cost_s};
  return saved;
}

}  // namespace gaptrain::core
