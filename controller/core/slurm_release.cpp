#include "core/slurm_release.hpp"

namespace gaptrain::daemon {

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

}  // namespace gaptrain::daemon
