#include "store_host.hpp"

#include <signal.h>

#include <algorithm>
#include <regex>
#include <system_error>
#include <thread>

#include "process.hpp"

namespace gaptrain::launch {

std::vector<std::string> StoreHost::command(const char* python_env,
                                            const std::vector<std::string>& training) {
  if (python_env != nullptr && *python_env != '\0')
    return {python_env, "-m", "gaptrain.store_host"};
  // `/opt/venv/bin/python3 train.py`: the Python the script imports gaptrain with; a bare
  // `python3` on the home node's PATH may be another one (a site's module, pyenv) without torch.
  static const std::regex interpreter("python[0-9.]*");
  const std::string first = training.empty() ? "" : training.front();
  const std::string base = first.substr(first.rfind('/') + 1);
  const bool is_python = std::regex_match(base, interpreter);
  return {is_python ? first : "python3", "-m", "gaptrain.store_host"};
}

namespace {

// A store host that ends sooner than this after its start did not get to serve: its Python cannot
// import torch or gaptrain, or its port is taken. One that ran longer is started again a second
// after its end.
constexpr std::chrono::seconds kRanAWhile{10};
// Quick ends in a row (2 + 4 + 8 + 16 s of waiting between them) before the launcher ends the job
// instead of letting it hold its nodes while its workers wait for a store that never comes.
constexpr int kQuickEndsBeforeGivingUp = 5;

// The wait before the next start: a second after an end once it ran a while; 2, 4, 8 ... 30 s
// after the first, second, third ... quick end in a row.
std::chrono::seconds wait_after(int quick_ends) {
  return std::chrono::seconds(quick_ends == 0 ? 1 : std::min(30, 1 << std::min(quick_ends, 5)));
}

std::string give_up_line(const std::string& python, const std::string& last) {
  return "the job's store host ended at once " + std::to_string(kQuickEndsBeforeGivingUp) +
         " times in a row (last: " + last + "); its error is above. Ending the job: set " +
         "GAPTRAIN_PYTHON to a Python with torch and gaptrain (`" + python +
         " -c 'import gaptrain.store_host'` must work) and submit it again";
}

}  // namespace

std::optional<std::string> StoreHost::keep_running(Clock::time_point now) {
  if (gave_up_) return std::nullopt;
  std::optional<std::string> said;
  if (pid_ > 0) {
    const std::optional<int> status = reap(pid_);
    if (!status) return std::nullopt;
    pid_ = -1;
    const bool ran = now - started_at_ >= kRanAWhile;
    if (count_end(ran)) return give_up_line(argv_.front(), describe_status(*status));
    said = "the job's store host ended (" + describe_status(*status) + ")" +
           (ran ? ": starting it again; the workers go on from the checkpoint"
                : " at once: its error is above; trying again");
    next_start_ = now + wait_after(quick_ends_);
  }
  if (now < next_start_) return said;
  started_at_ = now;
  try {
    pid_ = spawn(argv_, env_);
    ++starts_;
    if (starts_ == 1)
      said =
          "serving the job's store on the home node (" + argv_.front() + " -m gaptrain.store_host)";
  } catch (const std::system_error& e) {
    if (count_end(false)) return give_up_line(argv_.front(), e.what());
    next_start_ = now + wait_after(quick_ends_);
    said = "cannot start the job's store host (" + argv_.front() + "): " + e.what() +
           "; set GAPTRAIN_PYTHON to a Python with torch and gaptrain";
  }
  return said;
}

bool StoreHost::count_end(bool ran) {
  quick_ends_ = ran ? 0 : quick_ends_ + 1;
  gave_up_ = quick_ends_ >= kQuickEndsBeforeGivingUp;
  return gave_up_;
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
