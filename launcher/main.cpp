// gaptrain-launch: the elastic job's main program (the batch script of an --elastic job). See
// launcher.hpp for what it does and launch_options.cpp's help for how to use it.
#include <netinet/in.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <sstream>
#include <system_error>

#include "controller_link.hpp"
#include "gaptrain/errno_error.hpp"
#include "hostfile.hpp"
#include "launch_options.hpp"
#include "launcher.hpp"
#include "private_files.hpp"
#include "process.hpp"

namespace {

using gaptrain::launch::JobContext;

std::string env_or_empty(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

// 128 random bits as hex, from the kernel's generator (getrandom blocks only before the pool is
// first seeded at boot).
std::string random_secret() {
  std::array<unsigned char, 16> bytes{};
  std::size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t n = getrandom(bytes.data() + got, bytes.size() - got, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      gaptrain::throw_errno(errno, "getrandom");
    }
    got += static_cast<std::size_t>(n);
  }
  std::string hex;
  for (const unsigned char byte : bytes) {
    char pair[3];
    std::snprintf(pair, sizeof pair, "%02x", byte);
    hex += pair;
  }
  return hex;
}

// The address the other nodes reach `node` at: its NodeAddr in Slurm (node names need not
// resolve: on a cluster of several slurmd per machine they do not), else the name itself.
std::string node_address(const std::string& node) {
  const auto shown = gaptrain::launch::run_command({"scontrol", "show", "node", "-o", node},
                                                   std::chrono::seconds(30));
  if (!shown.ok) return node;
  std::istringstream words(shown.out);
  for (std::string word; words >> word;) {
    if (word.rfind("NodeAddr=", 0) == 0 && word.size() > 9) return word.substr(9);
  }
  return node;
}

// A TCP port free on this host (the batch host) now: the job's rendezvous store listens there.
// Two jobs whose batch hosts share a machine then do not collide on a fixed port.
int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return 29400;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = 0;
  address.sin_addr.s_addr = htonl(INADDR_ANY);
  socklen_t length = sizeof address;
  int port = 29400;
  // NOLINTNEXTLINE: the sockets API takes sockaddr*
  auto* generic = reinterpret_cast<sockaddr*>(&address);
  if (::bind(fd, generic, sizeof address) == 0 && ::getsockname(fd, generic, &length) == 0) {
    port = ntohs(address.sin_port);
  }
  ::close(fd);
  return port;
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
  job.job_file = env_or_empty("GAPTRAIN_JOB_FILE");
  job.rdzv_host = env_or_empty("GAPTRAIN_RDZV_HOST");
  if (job.rdzv_host.empty()) job.rdzv_host = node_address(job.batch_host);
  const std::string port = env_or_empty("GAPTRAIN_RDZV_PORT");
  job.rdzv_port = port.empty() ? free_port() : std::atoi(port.c_str());
  if (job.rdzv_port <= 0 || job.rdzv_port > 65535) {
    std::cerr << "gaptrain-launch: GAPTRAIN_RDZV_PORT is not a TCP port: \"" << port << "\"\n";
    return std::nullopt;
  }
  job.store_secret = random_secret();
  const std::string per_node = env_or_empty("GAPTRAIN_NPROC_PER_NODE");
  job.workers_per_node = per_node.empty() ? 1 : std::max(1, std::atoi(per_node.c_str()));
  job.min_nodes = job.registration ? job.registration->min_nodes : 1;
  job.max_nodes = job.registration ? job.registration->max_nodes
                                   : static_cast<int>(std::max<std::size_t>(1, job.nodes.size()));
  return job;
}

// Puts the host file, the job file and the progress file where they go: a path the user set
// where it is (its directory checked), the others in the job's private directory
// (private_files.hpp); creates the progress file. False after saying why it cannot.
bool place_job_files(JobContext& job, std::string& progress_file) {
  namespace launch = gaptrain::launch;
  try {
    std::string directory;
    const auto in_directory = [&](std::string& path, const char* name) {
      if (!path.empty()) {
        launch::check_directory_of(path);
        return;
      }
      if (directory.empty()) {
        char cwd[4096];
        const std::string working_dir = getcwd(cwd, sizeof cwd) != nullptr ? cwd : "";
        const launch::JobDirectory made = launch::make_job_directory(
            working_dir, env_or_empty("TMPDIR"), std::to_string(job.job_id));
        directory = made.path;
        if (made.not_in_working_dir) {
          std::cerr << "gaptrain-launch: the job's files are in " << directory << ", not under "
                    << "the working directory: " << *made.not_in_working_dir
                    << ". Other nodes see them only if that directory is shared: submit from a "
                       "directory only you can write to keep them beside the job\n";
        }
      }
      path = directory + "/" + name;
    };
    in_directory(job.hostfile, launch::kHostfileName);
    in_directory(job.job_file, launch::kJobFileName);
    in_directory(progress_file, launch::kProgressFileName);
    launch::prepare_progress_file(progress_file);
    return true;
  } catch (const launch::UnsafePath& e) {
    std::cerr << "gaptrain-launch: refusing to start: " << e.what() << "\n";
  } catch (const std::system_error& e) {
    std::cerr << "gaptrain-launch: cannot place the job's files: " << e.what() << "\n";
  }
  return false;
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
    if (!place_job_files(*job, options->progress_file)) return 1;
    gaptrain::launch::Launcher launcher(std::move(*options), std::move(*job));
    return launcher.run();
  } catch (const std::exception& e) {
    std::cerr << "gaptrain-launch: " << e.what() << "\n";
    return 1;
  }
}
