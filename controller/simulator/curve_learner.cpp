#include "simulator/curve_learner.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace gaptrain::sim {

CurveLearner::CurveLearner(int max_nodes, LearnerPrior prior)
    : max_nodes_(std::max(1, max_nodes)), prior_(prior) {}

void CurveLearner::observe_progress(int nodes, double samples, double seconds) {
  if (nodes <= 0 || seconds <= 0.0 || samples < 0.0) return;
  Measured& m = measured_[nodes];
  m.samples += samples;
  m.seconds += seconds;
}

void CurveLearner::observe_rescale(bool grow, double stall_s) {
  if (stall_s < 0.0) return;
  if (grow) {
    up_stall_s_ += stall_s;
    ++ups_;
  } else {
    down_stall_s_ += stall_s;
    ++downs_;
  }
}

double CurveLearner::alpha() const {
  if (measured_.size() < 2) return prior_.alpha;
  double weight = 0.0, mean_x = 0.0, mean_y = 0.0;
  for (const auto& [nodes, m] : measured_) {
    weight += m.seconds;
    mean_x += m.seconds * std::log(nodes);
    mean_y += m.seconds * std::log(std::max(m.rate(), 1e-12));
  }
  mean_x /= weight;
  mean_y /= weight;
  double sxy = 0.0, sxx = 0.0;
  for (const auto& [nodes, m] : measured_) {
    const double dx = std::log(nodes) - mean_x;
    sxy += m.seconds * dx * (std::log(std::max(m.rate(), 1e-12)) - mean_y);
    sxx += m.seconds * dx * dx;
  }
  if (sxx <= 0.0) return prior_.alpha;
  return std::clamp(sxy / sxx, prior_.min_alpha, prior_.max_alpha);
}

std::optional<double> CurveLearner::one_node_rate() const {
  if (measured_.empty()) return std::nullopt;
  // Anchor the fit at the count measured longest: that rate is the best known.
  const auto longest = std::max_element(
      measured_.begin(), measured_.end(),
      [](const auto& a, const auto& b) { return a.second.seconds < b.second.seconds; });
  return longest->second.rate() / std::pow(longest->first, alpha());
}

ScalingCurve CurveLearner::curve(double fallback_one_node_rate) const {
  const double one = one_node_rate().value_or(fallback_one_node_rate);
  const double a = alpha();
  std::vector<ScalingCurve::Point> points;
  auto predicted = [&](int n) { return one * std::pow(n, a); };
  // Powers of two keep the curve small; measured counts are exact where the job has run.
  std::map<int, double> rate_at;
  for (int n = 1; n < max_nodes_; n *= 2) rate_at[n] = predicted(n);
  rate_at[max_nodes_] = predicted(max_nodes_);
  for (const auto& [nodes, m] : measured_)
    if (nodes <= max_nodes_) rate_at[nodes] = m.rate();
  points.reserve(rate_at.size());
  for (const auto& [nodes, rate] : rate_at) points.push_back({nodes, std::max(0.0, rate)});
  return ScalingCurve(std::move(points));
}

double CurveLearner::up_cost_s() const {
  return ups_ > 0 ? up_stall_s_ / ups_ : prior_.up_cost_s;
}

double CurveLearner::down_cost_s() const {
  return downs_ > 0 ? down_stall_s_ / downs_ : prior_.down_cost_s;
}

}  // namespace gaptrain::sim
