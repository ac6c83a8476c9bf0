#include "worker.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <exception>
#include <system_error>
#include <utility>

#include "gaptrain/errno_error.hpp"

namespace gaptrain::daemon {

Worker::Worker(sd_event* event, Failure on_failure)
    : event_(sd_event_ref(event)), on_failure_(std::move(on_failure)) {
  wakeup_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wakeup_fd_ < 0) {
    const int saved = errno;
    sd_event_unref(event_);
    gaptrain::throw_errno(saved, "eventfd");
  }
  const int r =
      sd_event_add_io(event_, &wakeup_source_, wakeup_fd_, EPOLLIN, &Worker::on_wakeup, this);
  if (r < 0) {
    ::close(wakeup_fd_);
    sd_event_unref(event_);
    gaptrain::throw_errno(-r, "sd_event_add_io");
  }
  thread_ = std::thread([this] { run(); });
}

Worker::~Worker() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
    tasks_.clear();
  }
  wake_.notify_one();
  thread_.join();
  sd_event_source_disable_unref(wakeup_source_);
  ::close(wakeup_fd_);
  sd_event_unref(event_);
}

void Worker::post(Task task) {
  ++outstanding_;
  {
    const std::lock_guard lock(mutex_);
    tasks_.push_back(std::move(task));
  }
  wake_.notify_one();
}

void Worker::run() {
  for (;;) {
    Task task;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !tasks_.empty(); });
      if (stopping_) return;
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    std::function<void()> done;
    try {
      done = task();
    } catch (const std::exception& e) {
      done = [this, what = std::string(e.what())] { on_failure_(what); };
    } catch (...) {
      done = [this] { on_failure_("unknown exception"); };
    }
    {
      const std::lock_guard lock(mutex_);
      done_.push_back(std::move(done));
    }
    const std::uint64_t one = 1;
    // Cannot fail short of a full counter (2^64 - 1 wakeups unread).
    [[maybe_unused]] const ssize_t written = ::write(wakeup_fd_, &one, sizeof one);
  }
}

int Worker::on_wakeup(sd_event_source* /*source*/, int fd, std::uint32_t /*events*/, void* self) {
  auto& worker = *static_cast<Worker*>(self);
  std::uint64_t count = 0;
  [[maybe_unused]] const ssize_t read = ::read(fd, &count, sizeof count);
  std::deque<std::function<void()>> done;
  {
    const std::lock_guard lock(worker.mutex_);
    done.swap(worker.done_);
  }
  for (auto& finish : done) {
    --worker.outstanding_;
    if (finish) finish();
  }
  return 0;
}

}  // namespace gaptrain::daemon
