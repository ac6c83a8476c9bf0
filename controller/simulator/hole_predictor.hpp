// Predicts how long an idle node stays idle when the trace carries no scheduler plan (node-event
// logs): from the lengths of the holes seen so far, the expected remaining idle time of a node
// given how long it has been idle already. It only learns from holes that have ended, so it never
// looks at the future. Pure.
#pragma once

#include <array>
#include <optional>

namespace gaptrain::sim {

class HolePredictor {
 public:
  // A hole that has just ended lasted `length_s` seconds.
  void observe(double length_s);

  // Expected remaining idle time, capped at `cap_s`, of a node idle for `age_s` seconds:
  // E[min(L - age, cap) | L > age] over the holes seen so far. The cap makes it the expected
  // idle node-time within an allocation horizon, which is what the allocator values. Empty when
  // too few holes longer than `age_s` were seen to say anything.
  std::optional<double> expected_remaining(double age_s, double cap_s) const;

  long long holes_seen() const noexcept { return holes_seen_; }

 private:
  // Hole lengths in log-spaced buckets (kBucketsPerOctave per doubling from 1 s), each with its
  // count and the sum of its lengths, so memory is constant however long the trace.
  static constexpr int kBucketsPerOctave = 4;
  static constexpr int kBuckets = 4 * 40;
  struct Bucket {
    long long count = 0;
    double sum_s = 0.0;
  };
  static int bucket_of(double length_s);
  std::array<Bucket, kBuckets> buckets_{};
  long long holes_seen_ = 0;
};

}  // namespace gaptrain::sim
