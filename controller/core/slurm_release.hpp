// What gaptraind learns from slurmctld's configuration at start-up, and what it concludes:
// pure functions over the text slurm_load_ctl_conf returns, so that they are tested without a
// cluster. The libslurm side is SlurmQueries::load_config.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gaptrain::daemon {

// slurmctld's configuration as far as gaptraind's behaviour depends on it.
struct SlurmControllerConfig {
  std::string slurmctld_release;     // slurmctld's version, "24.11.5"
  std::string built_release;         // the libslurm headers gaptraind was built against
  std::string scheduler_parameters;  // SchedulerParameters, comma-separated
};

// True when the comma-separated SchedulerParameters `params` hold the option `name`, alone or
// as `name=value` (Slurm's own matching: the whole option, not a substring of another).
bool has_scheduler_parameter(std::string_view params, std::string_view name);

// "24.11" of "24.11.5"; the text unchanged when it has no second dot.
std::string major_minor(std::string_view release);

// What gaptraind must do differently on this configuration.
struct SlurmBehaviour {
  // SchedulerParameters=disable_job_shrink: slurmctld refuses every request to shrink a
  // running job, so gaptraind never shrinks a job's own nodes (it gives satellites back and
  // requeues a job whose own nodes a regular job needs).
  bool shrink_own_nodes = true;
  // One line each, for the start-up log: what differs and what gaptraind does about it.
  std::vector<std::string> notices;
};

SlurmBehaviour behaviour_for(const SlurmControllerConfig& config);

}  // namespace gaptrain::daemon
