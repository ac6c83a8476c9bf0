#include "simulator/hole_predictor.hpp"

#include <algorithm>
#include <cmath>

namespace gaptrain::sim {

namespace {
// Fewer longer holes than this and the history says nothing about a node this old.
constexpr long long kMinSupport = 5;
}  // namespace

int HolePredictor::bucket_of(double length_s) {
  if (length_s < 1.0) return 0;
  const int b = static_cast<int>(std::log2(length_s) * kBucketsPerOctave) + 1;
  return std::min(b, kBuckets - 1);
}

void HolePredictor::observe(double length_s) {
  if (!(length_s >= 0.0) || !std::isfinite(length_s)) return;
  Bucket& b = buckets_[static_cast<std::size_t>(bucket_of(length_s))];
  ++b.count;
  b.sum_s += length_s;
  ++holes_seen_;
}

std::optional<double> HolePredictor::expected_remaining(double age_s, double cap_s) const {
  // Buckets above the age's own hold holes longer than the age for sure; the age's bucket is
  // left out (its holes may have ended before the age), which biases a little towards longer
  // holes only within one quarter octave.
  long long count = 0;
  double remaining_s = 0.0;
  for (int i = bucket_of(age_s) + 1; i < kBuckets; ++i) {
    const Bucket& b = buckets_[static_cast<std::size_t>(i)];
    if (b.count == 0) continue;
    count += b.count;
    // min(L - age, cap) for the bucket's mean length; exact when the cap does not bind.
    remaining_s += static_cast<double>(b.count) *
                   std::min(b.sum_s / static_cast<double>(b.count) - age_s, cap_s);
  }
  if (count < kMinSupport) return std::nullopt;
  return std::max(0.0, remaining_s / static_cast<double>(count));
}

}  // namespace gaptrain::sim
