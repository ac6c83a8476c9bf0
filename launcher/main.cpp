// gaptrain-launch: the elastic job's main program (the batch script of an --elastic job). See
// launcher.hpp for what it does and options.cpp's help for how to use it.
#include <unistd.h>

#include <cstdlib>
#include <exception>
#include <iostream>
#include <sstream>

#include "controller_link.hpp"
#include "hostfile.hpp"
#include "launcher.hpp"
#include "options.hpp"
#include "process.hpp"

namespace {

using gaptrain::launch::JobContext;

std::string env_or_empty(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

// The job's nodes and batch host, from the batch script's environment; empty when this is not
// a Slurm batch job (the reason printed).
std::optional<JobContext> job_context() {
  const std::string id = env_or_empty("SLURM_JOB_ID");
  const std::string nodelist = env_or_empty("SLURM_JOB_NODELIST");
  if (id.empty() || nodelist.empty()) {
    std::cerr << "gaptrain-launch: not inside a Slurm job (SLURM_JOB_ID or SLURM_JOB_NODELIST "
                 "unset): run it as the batch script, e.g. sbatch -p elastic -N 1-8 "
                 "--elastic=1-8 gaptrain-launch -- CMD\n";
    return std::nullopt;
  }
  JobContext job;
  try {
    job.job_id = static_cast<std::uint32_t>(std::stoul(id));
  } catch (const std::exception&) {
    std::cerr << "gaptrain-launch: SLURM_JOB_ID is not a job id: \"" << id << "\"\n";
    return std::nullopt;
  }
  const auto hosts = gaptrain::launch::run_command({"scontrol", "show", "hostnames", nodelist},
                                                   std::chrono::seconds(30));
  if (!hosts.ok) {
    std::cerr << "gaptrain-launch: cannot expand SLURM_JOB_NODELIST=" << nodelist << ": "
              << hosts.why << "\n";
    return std::nullopt;
  }
  std::istringstream lines(hosts.out);
  std::vector<std::string> nodes;
  for (std::string node; lines >> node;) nodes.push_back(node);
  job.batch_host = env_or_empty("SLURMD_NODENAME");
  if (job.batch_host.empty() && !nodes.empty()) job.batch_host = nodes.front();
  // Batch host first: it is the rendezvous host, and the one node Slurm never takes away.
  job.nodes.push_back(job.batch_host);
  for (const std::string& node : nodes) {
    if (node != job.batch_host) job.nodes.push_back(node);
  }
  std::string why;
  job.registration = gaptrain::launch::registration_from_env(env_or_empty("GAPTRAIN_REGISTRATION"),
                                                             job.job_id, why);
  if (!why.empty()) std::cerr << "gaptrain-launch: " << why << "; not registering the job again\n";
  job.hostfile = env_or_empty("GAPTRAIN_HOSTFILE");
  if (job.hostfile.empty()) {
    char cwd[4096];
    const std::string working_dir = getcwd(cwd, sizeof cwd) != nullptr ? cwd : "";
    job.hostfile = gaptrain::launch::default_hostfile_path(working_dir, env_or_empty("TMPDIR"), id);
  }
  return job;
}

}  // namespace

int main(int argc, char** argv) {
  // Before any child or thread exists: the loop takes these signals with sigtimedwait.
  gaptrain::launch::block_loop_signals();
  try {
    int exit_code = 0;
    auto options =
        gaptrain::launch::parse_options(argc, argv, &std::getenv, std::cout, std::cerr, exit_code);
    if (!options) return exit_code;
    auto job = job_context();
    if (!job) return 2;
    gaptrain::launch::Launcher launcher(std::move(*options), std::move(*job));
    return launcher.run();
  } catch (const std::exception& e) {
    std::cerr << "gaptrain-launch: " << e.what() << "\n";
    return 1;
  }
}
