#include "simulator/curve_hull.hpp"

#include <algorithm>
#include <utility>

namespace gaptrain::sim {

std::vector<std::pair<double, double>> upper_hull(
    const std::vector<std::pair<double, double>>& points) {
  std::vector<std::pair<double, double>> hull;
  for (const auto& p : points) {
    while (hull.size() >= 2) {
      const auto& [x0, y0] = hull[hull.size() - 2];
      const auto& [x1, y1] = hull.back();
      const double cross = (x1 - x0) * (p.second - y0) - (y1 - y0) * (p.first - x0);
      if (cross < 0.0) break;  // hull.back() lies strictly above: keep it
      hull.pop_back();
    }
    hull.push_back(p);
  }
  return hull;
}

std::vector<HullPiece> concave_hull(const ScalingCurve& curve) {
  // Points through the highest one (first if several): beyond it the majorant is flat.
  std::vector<std::pair<double, double>> points{{0.0, 0.0}};
  const auto& measured = curve.points();
  const auto highest = std::max_element(
      measured.begin(), measured.end(),
      [](const auto& a, const auto& b) { return a.samples_per_s < b.samples_per_s; });
  for (auto it = measured.begin(); it != std::next(highest); ++it)
    points.emplace_back(it->nodes, it->samples_per_s);

  const std::vector<std::pair<double, double>> hull = upper_hull(points);
  std::vector<HullPiece> pieces;
  for (std::size_t i = 1; i < hull.size(); ++i) {
    const auto& [x0, y0] = hull[i - 1];
    const auto& [x1, y1] = hull[i];
    const double slope = (y1 - y0) / (x1 - x0);
    // y0 - slope * x0 >= 0 by concavity; the max() only guards rounding.
    pieces.push_back({std::max(0.0, y0 - slope * x0), slope});
  }
  pieces.push_back({highest->samples_per_s, 0.0});  // flat from the highest point on
  return pieces;
}

}  // namespace gaptrain::sim
