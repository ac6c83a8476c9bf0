// What gaptraind must not forget across a restart: each elastic job's registration with what was
// learned of it, the time limit each managed job was submitted with (its leases are capped by
// it; after a restart Slurm shows only the current lease), and what an admin lets gaptraind do.
// The core makes it from its model (Controller::saved) and restores it at the first poll
// (Controller::observe); the daemon keeps it in its state file (controller/daemon/state_file.hpp).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "core/elastic_jobs.hpp"
#include "core/operation.hpp"
#include "gaptrain/protocol.hpp"
#include "gaptrain/scaling_curve.hpp"

namespace gaptrain::core {

struct SavedJob {
  protocol::JobRegistration registration;  // what the job registered with
  uid_t uid = 0;
  std::int64_t registered_at = 0;
  // What replaced the assumptions (Source::learned), restored as learned.
  std::optional<ScalingCurve> learned_curve;
  std::optional<std::pair<double, double>> learned_costs;  // up, down (s)
  std::optional<double> learned_noise_scale;  // a job with a batch range: phi, samples at M0

  friend bool operator==(const SavedJob&, const SavedJob&) = default;
};

struct SavedState {
  std::vector<SavedJob> jobs;
  std::map<std::uint32_t, std::uint32_t> user_limits;  // job -> minutes, 0: no limit
  Operation operation = Operation::running;

  friend bool operator==(const SavedState&, const SavedState&) = default;
};

// A managed job as saved: its registration as given, and what was learned in place of what it
// left out.
SavedJob saved_job(const ElasticJob& job);

}  // namespace gaptrain::core
