// The SlurmActions port through libslurm (docs/slurm-notes.md): what gaptraind really does to
// Slurm when the decision core resizes a job.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/slurm_actions.hpp"

namespace gaptrain::daemon {

// What one job looks like to slurmctld now (for checks and for the test tool).
struct JobView {
  bool ok = false;
  std::string error;
  std::string state;  // "RUNNING", "PENDING", ...
  std::string partition;
  std::string batch_host;
  std::vector<std::string> nodes;
  std::uint32_t user_id = 0;
  std::uint32_t group_id = 0;
  std::uint32_t time_limit_minutes = 0;
};

// The real thing, through libslurm. libslurm must already be initialized (slurm_init: the
// daemon's SlurmSource does it once per process).
class LibslurmActions final : public core::SlurmActions {
 public:
  core::ActionResult shrink(const core::ShrinkRequest& request) override;
  core::GrowResult grow(const core::GrowRequest& request) override;
  core::ActionResult release(const std::vector<std::uint32_t>& satellite_ids) override;
  core::ActionResult set_time_limit(std::uint32_t job_id, std::uint32_t minutes) override;
  core::ActionResult admit(const core::AdmitRequest& request) override;
  core::ActionResult requeue(std::uint32_t job_id) override;
  core::ActionResult park(std::uint32_t job_id) override;

  JobView describe(std::uint32_t job_id);

 private:
  // admit() in the home mode (AdmitRequest::home_partition).
  core::ActionResult admit_home(const core::AdmitRequest& request);
  // Ends a hold (scontrol release).
  core::ActionResult release_hold(std::uint32_t job_id);
};

}  // namespace gaptrain::daemon
