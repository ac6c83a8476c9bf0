#include "request_throttle.hpp"

#include <algorithm>

namespace gaptrain::daemon {

namespace {
// Buckets are forgotten once full again; this many senders are kept before that is checked.
constexpr std::size_t kPruneAbove = 1024;
}  // namespace

double RequestThrottle::tokens_at(const Bucket& bucket, double now) const {
  return std::min(limits_.burst, bucket.tokens + std::max(0.0, now - bucket.at) * limits_.per_s);
}

bool RequestThrottle::allow(uid_t uid, double now) {
  if (buckets_.size() > kPruneAbove) {
    std::erase_if(buckets_,
                  [&](const auto& entry) { return tokens_at(entry.second, now) >= limits_.burst; });
  }
  const auto [it, fresh] = buckets_.try_emplace(uid, Bucket{limits_.burst, now});
  Bucket& bucket = it->second;
  bucket.tokens = tokens_at(bucket, now);
  bucket.at = now;
  if (bucket.tokens < 1.0) return false;
  bucket.tokens -= 1.0;
  return true;
}

double RequestThrottle::wait_s(uid_t uid, double now) const {
  const auto it = buckets_.find(uid);
  if (it == buckets_.end()) return 0.0;
  const double missing = 1.0 - tokens_at(it->second, now);
  return missing <= 0.0 ? 0.0 : missing / limits_.per_s;
}

}  // namespace gaptrain::daemon
