#include "simulator/model_curves.hpp"

#include <algorithm>
#include <functional>
#include <set>

namespace gaptrain::sim {
namespace {

// `pick` (std::less: the least, std::greater: the greatest) of the curves' rates at every
// count one of them was measured at.
template <typename Pick>
ScalingCurve envelope(const std::map<std::string, ScalingCurve>& curves, Pick pick) {
  std::set<int> counts;
  for (const auto& [type, curve] : curves)
    for (const ScalingCurve::Point& point : curve.points()) counts.insert(point.nodes);
  std::vector<ScalingCurve::Point> points;
  points.reserve(counts.size());
  for (const int nodes : counts) {
    double rate = curves.begin()->second.at(nodes);
    for (const auto& [type, curve] : curves) rate = std::min(rate, curve.at(nodes), pick);
    points.push_back({nodes, rate});
  }
  return ScalingCurve(std::move(points));
}

}  // namespace

ScalingCurve slowest_curve(const std::map<std::string, ScalingCurve>& curves) {
  return envelope(curves, std::less<>());
}

ScalingCurve fastest_curve(const std::map<std::string, ScalingCurve>& curves) {
  return envelope(curves, std::greater<>());
}

ScalingCurve fastest_curve(const ModelCurves& model) {
  return model.by_type.empty() ? model.curve : fastest_curve(model.by_type);
}

double training_rate(const ModelCurves& model, const std::vector<std::string>& types, int nodes) {
  if (nodes <= 0) return 0.0;
  if (model.by_type.empty()) return model.curve.at(nodes);
  double rate = -1.0;
  for (const std::string& type : types) {
    const auto it = model.by_type.find(type);
    if (it == model.by_type.end()) return 0.0;
    const double on_type = it->second.at(nodes);
    rate = rate < 0.0 ? on_type : std::min(rate, on_type);
  }
  return std::max(rate, 0.0);
}

}  // namespace gaptrain::sim
