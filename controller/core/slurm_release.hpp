// What gaptraind learns from slurmctld's configuration at start-up, and what it concludes:
// pure functions over the text slurm_load_ctl_conf returns, so that they are tested without a
// cluster. The libslurm side is SlurmQueries::load_config.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/cluster.hpp"
#include "core/elastic_partitions.hpp"

namespace gaptrain::core {

// slurmctld's configuration as far as gaptraind's behaviour depends on it.
struct SlurmControllerConfig {
  std::string slurmctld_release;     // slurmctld's version, "24.11.5"
  std::string built_release;         // the libslurm headers gaptraind was built against
  std::string scheduler_parameters;  // SchedulerParameters, comma-separated
  std::string preempt_type;          // PreemptType, "preempt/qos"
  bool preempt_mode_cancel = false;  // PreemptMode holds CANCEL
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

// Why slurmctld, configured as `config`, will not cancel satellites in `satellite_qos` for
// regular jobs by itself (gaptraind.json's satellite_qos; docs/admin.md): one line each, saying
// what to set. Empty when it will, or when no satellite QOS is configured. Whether the regular
// QOS lists satellite_qos in its Preempt is the accounting database's, not checked here.
std::vector<std::string> satellite_qos_problems(const SlurmControllerConfig& config,
                                                std::string_view satellite_qos);

// Why satellites allocated in `satellite_partition` (gaptraind.json's satellite_partition;
// docs/admin.md) will be refused or not beat pending jobs, given slurmctld's `partitions`: it
// does not exist, lacks nodes of an elastic partition, or its PriorityTier is not above that of
// every other partition sharing its nodes (Slurm refuses an immediate allocation while a job of
// higher priority pends in an overlapping partition of the same or a higher tier), or
// `slurmctld_release` is older than 24.11 (before it, slurmctld compares only the jobs'
// priorities there: no partition helps). One line each, saying what to set; empty when none,
// or when no satellite partition is configured.
std::vector<std::string> satellite_partition_problems(const std::vector<Partition>& partitions,
                                                      std::string_view satellite_partition,
                                                      const ElasticPartitions& elastic_partitions,
                                                      std::string_view slurmctld_release);

}  // namespace gaptrain::core
