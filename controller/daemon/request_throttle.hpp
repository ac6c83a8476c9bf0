// A token bucket per sender (munge-authenticated uid): at most `burst` requests at once and
// `per_s` a second on average. For what a user may ask as often as they like but each answer
// costs the daemon's loop (`gaptrain status` builds the whole view): a `watch -n 0.1` or a
// hostile loop gets a refusal, other users and the plugins' events are not slowed. Pure: times
// in, verdicts out.
#pragma once

#include <sys/types.h>

#include <unordered_map>

namespace gaptrain::daemon {

struct ThrottleLimits {
  double per_s = 2.0;
  double burst = 10.0;
};

class RequestThrottle {
 public:
  explicit RequestThrottle(ThrottleLimits limits = {}) : limits_(limits) {}

  // Whether `uid` may be served at `now` (monotonic s); a served request takes a token.
  bool allow(uid_t uid, double now);
  // Seconds until `uid` may be served again (0 when it may now).
  double wait_s(uid_t uid, double now) const;
  const ThrottleLimits& limits() const noexcept { return limits_; }

 private:
  struct Bucket {
    double tokens = 0.0;
    double at = 0.0;  // when `tokens` was counted
  };
  double tokens_at(const Bucket& bucket, double now) const;

  ThrottleLimits limits_;
  std::unordered_map<uid_t, Bucket> buckets_;
};

}  // namespace gaptrain::daemon
