#include "core/saved_state.hpp"

namespace gaptrain::core {

SavedJob saved_job(const ElasticJob& job) {
  SavedJob saved;
  saved.uid = job.uid;
  saved.registered_at = job.registered_at;
  protocol::JobRegistration& r = saved.registration;
  r.job_id = job.job_id;
  r.user = job.user;
  r.batch_host = job.batch_host;
  r.min_nodes = job.min_nodes;
  r.max_nodes = job.max_nodes;
  r.allowed_sizes = job.allowed_sizes;
  r.mix_types = job.mix_types;
  if (job.curves.empty()) {
    if (job.curve_source == Source::given) r.curve = job.curve;
    if (job.curve_source == Source::learned) saved.learned_curve = job.curve;
  }
  // Per node type: the given curves; one learned on a type is learned again after a restart.
  for (const auto& [type, typed] : job.curves) {
    r.curves[type] =
        typed.source == Source::given ? std::optional<ScalingCurve>(typed.curve) : std::nullopt;
  }
  if (job.costs_source == Source::given) {
    r.up_cost_s = job.up_cost_s;
    r.down_cost_s = job.down_cost_s;
  }
  r.notice_s = job.notice_s;
  r.batch = job.batch;
  r.noise_scale = job.given_noise_scale;
  saved.learned_noise_scale = job.learned_noise_scale;
  if (job.costs_source == Source::learned) saved.learned_costs = {job.up_cost_s, job.down_cost_s};
  return saved;
}

}  // namespace gaptrain::core
