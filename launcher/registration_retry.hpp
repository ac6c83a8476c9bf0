// When gaptrain-launch sends its job's registration (protocol::JobRegistration) again. The
// plugin registers a job once, as its batch step starts; if gaptraind was down or restarted
// without it, the job would never be managed. The launcher holds the same registration (the
// plugin leaves it in the job's environment, GAPTRAIN_REGISTRATION) and sends it whenever
// gaptraind refuses its report (not registered), backing off 1 s, 2 s, 4 s... at most 30 s while
// refusals go on, and starting over once a report is answered. Registering is idempotent on the
// daemon's side. Pure: times in, verdicts out.
#pragma once

#include <chrono>

namespace gaptrain::launch {

class RegistrationRetry {
 public:
  using Clock = std::chrono::steady_clock;

  explicit RegistrationRetry(std::chrono::milliseconds first = std::chrono::seconds(1),
                             std::chrono::milliseconds most = std::chrono::seconds(30))
      : first_(first), most_(most), delay_(first) {}

  // A report was answered: the job is registered. The next refusal re-registers at once.
  void answered();
  // A report was refused at `now`: whether to send the registration now.
  bool due(Clock::time_point now) const { return now >= next_; }
  // The registration was sent at `now` (whatever the answer): the next one waits the backoff.
  void sent(Clock::time_point now);

 private:
  std::chrono::milliseconds first_;
  std::chrono::milliseconds most_;
  std::chrono::milliseconds delay_;
  Clock::time_point next_{};
};

}  // namespace gaptrain::launch
