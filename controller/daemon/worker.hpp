// A thread beside the sd-event loop for the calls that may block: Slurm RPCs (which wait up to
// MessageTimeout when slurmctld is slow or down), munge decoding (a round trip to munged) and
// the allocator. The loop posts a task; the worker runs it and hands back what it returns, a
// function run on the loop's thread (woken through an eventfd in the loop). Tasks run one at a
// time, in order; what they need is handed over by value, so the loop keeps sole ownership of
// its state and never waits for the worker.
#pragma once

#include <systemd/sd-event.h>

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace gaptrain::daemon {

class Worker {
 public:
  // Run on the loop's thread with the task's result.
  using Done = std::function<void()>;
  // Run on the worker's thread; must not touch the loop's state.
  using Task = std::function<Done()>;
  // Told on the loop's thread when a task threw (its Done is lost).
  using Failure = std::function<void(const std::string& what)>;

  // Starts the thread; throws std::system_error when it or the eventfd cannot be made.
  Worker(sd_event* event, Failure on_failure);
  // Waits for the task that runs (a Slurm call ends within its timeout) and drops the rest.
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  void post(Task task);
  // Tasks posted whose Done has not run yet (on the loop's thread).
  std::size_t outstanding() const noexcept { return outstanding_; }

 private:
  static int on_wakeup(sd_event_source* source, int fd, std::uint32_t events, void* self);
  void run();

  sd_event* event_;
  Failure on_failure_;
  int wakeup_fd_ = -1;
  sd_event_source* wakeup_source_ = nullptr;
  std::size_t outstanding_ = 0;  // loop thread only

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Task> tasks_;
  std::deque<std::function<void()>> done_;  // Done, or a failure report
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace gaptrain::daemon
