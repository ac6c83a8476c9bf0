// The clocks the daemon's parts read (daemon.cpp, daemon_requests.cpp, daemon_state.cpp), and
// how the journal writes a predicted time.
#pragma once

#include <systemd/sd-event.h>

#include <cstdint>
#include <ctime>

namespace gaptrain::daemon {

inline constexpr std::uint64_t kUsecPerS = 1000000;

// sd_event_now() is the time the loop woke up: the same all through one callback.
inline std::uint64_t mono_now_uncached() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * kUsecPerS +
         static_cast<std::uint64_t>(ts.tv_nsec) / 1000;
}

inline double mono_now_uncached_s() {
  return static_cast<double>(mono_now_uncached()) / static_cast<double>(kUsecPerS);
}

inline std::int64_t wall_now() {
  return static_cast<std::int64_t>(std::time(nullptr));
}

// The wall clock to the microsecond, for the history's clock (job_history.hpp): Slurm's times
// are whole seconds (wall_now), a training's progress stamps are not.
inline double wall_now_precise() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

inline std::uint64_t mono_now(sd_event* event) {
  std::uint64_t now = 0;
  sd_event_now(event, CLOCK_MONOTONIC, &now);
  return now;
}

}  // namespace gaptrain::daemon
