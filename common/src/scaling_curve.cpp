#include "gaptrain/scaling_curve.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <string>
#include <utility>

#include "gaptrain/bounds.hpp"
#include "gaptrain/input_error.hpp"

namespace gaptrain {

namespace {

// The shortest text that reads back as `value` ("nan", "inf" and "-inf" as such).
std::string number_text(double value) {
  std::array<char, 32> buffer{};
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  return std::string(buffer.data(), result.ptr);
}

}  // namespace

std::optional<std::string> ScalingCurve::point_problem(int previous_nodes, const Point& point) {
  if (point.nodes < 1) return "node count must be >= 1, got " + std::to_string(point.nodes);
  if (point.nodes > bounds::kMaxNodes) {
    return "node count must be at most " + std::to_string(bounds::kMaxNodes) + ", got " +
           std::to_string(point.nodes);
  }
  if (point.nodes <= previous_nodes) {
    return "node counts must increase, got " + std::to_string(point.nodes) + " after " +
           std::to_string(previous_nodes);
  }
  if (!(point.samples_per_s > 0.0 && point.samples_per_s <= bounds::kMaxSamplesPerS)) {
    return "samples_per_s must be a finite number > 0 and at most 1e15, got " +
           number_text(point.samples_per_s) +
           " (leave out node counts whose throughput was not measured)";
  }
  return std::nullopt;
}

ScalingCurve::ScalingCurve(std::vector<Point> points) : points_(std::move(points)) {
  if (points_.empty()) throw InputError("curve", "needs at least one [nodes, samples_per_s] point");
  int previous_nodes = 0;
  for (std::size_t i = 0; i < points_.size(); ++i) {
    if (auto problem = point_problem(previous_nodes, points_[i])) {
      throw InputError("curve[" + std::to_string(i) + "]", *problem);
    }
    previous_nodes = points_[i].nodes;
  }
}

double ScalingCurve::at(double nodes) const {
  if (nodes <= 0.0) return 0.0;
  // The first point at or beyond `nodes`, by bisection: the allocator asks for every node count
  // of every job, and a measured curve may have a point at each.
  const auto above = std::lower_bound(points_.begin(), points_.end(), nodes,
                                      [](const Point& p, double n) { return p.nodes < n; });
  if (above == points_.end()) return points_.back().samples_per_s;
  const double x0 = above == points_.begin() ? 0.0 : std::prev(above)->nodes;
  const double y0 = above == points_.begin() ? 0.0 : std::prev(above)->samples_per_s;
  return y0 + (above->samples_per_s - y0) * (nodes - x0) / (above->nodes - x0);
}

}  // namespace gaptrain
