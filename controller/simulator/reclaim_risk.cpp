#include "simulator/reclaim_risk.hpp"

#include <algorithm>
#include <vector>

namespace gaptrain::sim {

namespace {
constexpr long long kMinHoleEnds = 10;
// A curve's rates are > 0 (scaling_curve.hpp): where the expected losses eat the whole rate on
// many nodes, the job keeps this fraction of it there.
constexpr double kMinKept = 1e-9;
}  // namespace

std::optional<ScalingCurve> reclaim_adjusted(const ScalingCurve& curve, int max_nodes,
                                             double hazard_per_node_s, double up_cost_s,
                                             double down_cost_s) {
  if (hazard_per_node_s <= 0.0 || max_nodes < 1) return curve;
  const auto kept_on = [&](int n) {
    return 1.0 - hazard_per_node_s * (n * down_cost_s + up_cost_s);
  };
  if (!(kept_on(1) > 0.0)) return std::nullopt;
  const auto point = [&](int n) {
    const double kept = kept_on(n);
    return ScalingCurve::Point{n, curve.at(n) * std::max(kMinKept, kept)};
  };
  std::vector<ScalingCurve::Point> points;
  for (int n = 1; n <= max_nodes; n = n < 16 ? n + 1 : n + std::max(1, n / 8)) {
    points.push_back(point(n));
  }
  if (points.back().nodes != max_nodes) points.push_back(point(max_nodes));
  return ScalingCurve(std::move(points));
}

double ReclaimHazard::per_node_second() const {
  if (hole_ends_ < kMinHoleEnds || idle_node_seconds_ <= 0.0) return 0.0;
  return static_cast<double>(hole_ends_) / idle_node_seconds_;
}

}  // namespace gaptrain::sim
