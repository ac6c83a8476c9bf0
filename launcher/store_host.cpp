#include "store_host.hpp"

#include <signal.h>

#include <algorithm>
#include <system_error>
#include <thread>

#include "process.hpp"

namespace gaptrain::launch {

std::vector<std::string> StoreHost::command(const char* python_env) {
  const std::string python = python_env != nullptr && *python_env != '\0' ? python_env : "python3";
  return {python, "-m", "gaptrain.store_host"};
}

std::optional<std::string> StoreHost::keep_running(Clock::time_point now) {
  std::optional<std::string> said;
  if (pid_ > 0) {
    const std::optional<int> status = reap(pid_);
    if (!status) return std::nullopt;
    pid_ = -1;
    const bool ran = now - started_at_ >= std::chrono::seconds(10);
    said = "the job's store host ended (" + describe_status(*status) + ")" +
           (ran ? ": starting it again; the workers go on from the checkpoint"
                : " at once: its error is above; trying again");
  }
  if (now < next_start_) return said;
  // Once a second after it ran a while; one that keeps dying at once waits 2, 4 ... 30 s.
  quick_deaths_ =
      starts_ > 0 && now - started_at_ < std::chrono::seconds(10) ? quick_deaths_ + 1 : 0;
  next_start_ = now + std::chrono::seconds(std::min(30, 1 << std::min(quick_deaths_, 5)));
  started_at_ = now;
  try {
    pid_ = spawn(argv_, env_);
    ++starts_;
    if (starts_ == 1)
      said =
          "serving the job's store on the home node (" + argv_.front() + " -m gaptrain.store_host)";
  } catch (const std::system_error& e) {
    said = "cannot start the job's store host (" + argv_.front() + "): " + e.what() +
           "; set GAPTRAIN_PYTHON to a Python with torch and gaptrain";
  }
  return said;
}

void StoreHost::stop() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGTERM);
  for (int i = 0; i < 40; ++i) {
    if (reap(pid_)) {
      pid_ = -1;
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ::kill(pid_, SIGKILL);
  while (!reap(pid_)) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  pid_ = -1;
}

}  // namespace gaptrain::launch
