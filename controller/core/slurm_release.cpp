#include "core/slurm_release.hpp"

#include <algorithm>
#include <cstdio>
#include <set>
#include <utility>

namespace gaptrain::core {

bool has_scheduler_parameter(std::string_view params, std::string_view name) {
  while (!params.empty()) {
    const std::size_t comma = params.find(',');
    std::string_view option = params.substr(0, comma);
    params = comma == std::string_view::npos ? std::string_view{} : params.substr(comma + 1);
    option = option.substr(0, option.find('='));
    if (option == name) return true;
  }
  return false;
}

std::string major_minor(std::string_view release) {
  const std::size_t first = release.find('.');
  if (first == std::string_view::npos) return std::string(release);
  const std::size_t second = release.find('.', first + 1);
  return std::string(release.substr(0, second));
}

SlurmBehaviour behaviour_for(const SlurmControllerConfig& config) {
  SlurmBehaviour behaviour;
  if (has_scheduler_parameter(config.scheduler_parameters, "disable_job_shrink")) {
    behaviour.shrink_own_nodes = false;
    behaviour.notices.push_back(
        "SchedulerParameters=disable_job_shrink: gaptraind never shrinks a job's own nodes; it "
        "gives back the nodes a job grew into and requeues a job whose own nodes a regular job "
        "needs (remove disable_job_shrink to let jobs keep running on fewer nodes)");
  }
  if (!config.slurmctld_release.empty() && !config.built_release.empty() &&
      major_minor(config.slurmctld_release) != major_minor(config.built_release)) {
    behaviour.notices.push_back(
        "slurmctld runs Slurm " + config.slurmctld_release + " but gaptraind was built against " +
        config.built_release + ": rebuild gaptrain against Slurm " +
        major_minor(config.slurmctld_release) + " (docs/admin.md, on a Slurm upgrade)");
  }
  return behaviour;
}

std::vector<std::string> satellite_qos_problems(const SlurmControllerConfig& config,
                                                std::string_view satellite_qos) {
  std::vector<std::string> problems;
  if (satellite_qos.empty()) return problems;
  const std::string qos(satellite_qos);
  if (config.preempt_type != "preempt/qos") {
    problems.push_back("satellite_qos is \"" + qos + "\" but PreemptType is \"" +
                       config.preempt_type +
                       "\": slurmctld will not free satellites for regular jobs itself, "
                       "gaptraind reclaims them; set PreemptType=preempt/qos in slurm.conf");
  }
  if (!config.preempt_mode_cancel) {
    problems.push_back("satellite_qos is \"" + qos +
                       "\" but PreemptMode has no CANCEL: a preempted satellite (an allocation, "
                       "not a batch job) can only be cancelled; set PreemptMode=CANCEL");
  }
  return problems;
}

std::vector<std::string> satellite_partition_problems(const std::vector<Partition>& partitions,
                                                      std::string_view satellite_partition,
                                                      const ElasticPartitions& elastic_partitions,
                                                      std::string_view slurmctld_release) {
  std::vector<std::string> problems;
  if (satellite_partition.empty()) return problems;
  const std::string name(satellite_partition);
  // Slurm 22.05 to 24.05 rank an immediate allocation against every pending job outside a
  // reservation by priority alone (job_mgr.c, _top_priority); 24.11 compares partition tiers.
  int major = 0;
  int minor = 0;
  const std::string release = major_minor(slurmctld_release);
  if (std::sscanf(release.c_str(), "%d.%d", &major, &minor) == 2 &&
      std::pair(major, minor) < std::pair(24, 11)) {
    problems.push_back("satellite_partition is \"" + name + "\" but slurmctld runs Slurm " +
                       std::string(slurmctld_release) +
                       ", which ranks a satellite against pending jobs by priority alone "
                       "(partition tiers count from 24.11): grows are still refused while a "
                       "regular job of higher priority pends (docs/admin.md)");
  }
  const auto named = [&](std::string_view wanted) {
    const auto it = std::find_if(partitions.begin(), partitions.end(),
                                 [&](const Partition& p) { return p.name == wanted; });
    return it == partitions.end() ? nullptr : &*it;
  };
  const Partition* satellites = named(name);
  if (satellites == nullptr) {
    problems.push_back("satellite_partition is \"" + name + "\" but slurmctld has no such " +
                       "partition: every grow fails until slurm.conf has PartitionName=" + name +
                       " over the elastic partition's nodes, at a PriorityTier above the others " +
                       "(docs/admin.md)");
    return problems;
  }
  const std::set<std::string> nodes(satellites->nodes.begin(), satellites->nodes.end());
  for (const std::string& elastic_partition : elastic_partitions.names()) {
    const Partition* elastic = named(elastic_partition);
    if (elastic == nullptr) continue;
    std::string missing;
    for (const std::string& node : elastic->nodes) {
      if (!nodes.contains(node)) missing += (missing.empty() ? "" : ",") + node;
    }
    if (!missing.empty()) {
      problems.push_back("satellite_partition \"" + name + "\" lacks nodes of the elastic " +
                         "partition (" + missing +
                         "): grows onto them fail; give it Nodes= as the elastic partition's");
    }
  }
  for (const Partition& other : partitions) {
    if (other.name == name || other.priority_tier < satellites->priority_tier) continue;
    const bool shares = std::any_of(other.nodes.begin(), other.nodes.end(),
                                    [&](const std::string& node) { return nodes.contains(node); });
    if (!shares) continue;
    problems.push_back("satellite_partition \"" + name + "\" has PriorityTier " +
                       std::to_string(satellites->priority_tier) + ", not above partition " +
                       other.name + "'s " + std::to_string(other.priority_tier) +
                       ": Slurm refuses a satellite while a job of " + other.name +
                       " pends (insufficient priority); set PriorityTier=" +
                       std::to_string(other.priority_tier + 1) + " or more on " + name);
  }
  return problems;
}

}  // namespace gaptrain::core
