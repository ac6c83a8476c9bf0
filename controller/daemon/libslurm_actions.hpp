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
class LibslurmActions final : public SlurmActions {
 public:
  ActionResult shrink(const ShrinkRequest& request) override;
  GrowResult grow(const GrowRequest& request) override;
  ActionResult release(const std::vector<std::uint32_t>& satellite_ids) override;
  ActionResult set_time_limit(std::uint32_t job_id, std::uint32_t minutes) override;
  ActionResult admit(const AdmitRequest& request) override;
  ActionResult requeue(std::uint32_t job_id) override;
  ActionResult park(std::uint32_t job_id) override;

  JobView describe(std::uint32_t job_id);

 private:
  // admit() in the home mode (AdmitRequest::home_partition).
  ActionResult admit_home(const AdmitRequest& request);
  // Ends a hold (scontrol release).
  ActionResult release_hold(std::uint32_t job_id);
};

}  // namespace gaptrain::daemon
