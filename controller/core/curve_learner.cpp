#include "core/curve_learner.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "gaptrain/bounds.hpp"

namespace gaptrain::sim {

CurveLearner::CurveLearner(int max_nodes, LearnerPrior prior)
    : max_nodes_(std::clamp(max_nodes, 1, bounds::kMaxNodes)), prior_(prior) {}

void CurveLearner::observe_progress(int nodes, double samples, double seconds) {
  if (nodes <= 0 || !(seconds > 0.0) || !(samples >= 0.0) || !std::isfinite(seconds) ||
      !std::isfinite(samples)) {
    return;
  }
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

std::map<int, CurveLearner::Measured> CurveLearner::rates_seen() const {
  std::map<int, Measured> seen;
  for (const auto& [nodes, m] : measured_)
    if (m.samples > 0.0) seen.emplace(nodes, m);
  return seen;
}

double CurveLearner::alpha() const {
  const std::map<int, Measured> seen = rates_seen();
  if (seen.size() < 2) return prior_.alpha;
  double weight = 0.0, mean_x = 0.0, mean_y = 0.0;
  for (const auto& [nodes, m] : seen) {
    weight += m.seconds;
    mean_x += m.seconds * std::log(nodes);
    mean_y += m.seconds * std::log(std::max(m.rate(), 1e-12));
  }
  mean_x /= weight;
  mean_y /= weight;
  double sxy = 0.0, sxx = 0.0;
  for (const auto& [nodes, m] : seen) {
    const double dx = std::log(nodes) - mean_x;
    sxy += m.seconds * dx * (std::log(std::max(m.rate(), 1e-12)) - mean_y);
    sxx += m.seconds * dx * dx;
  }
  if (sxx <= 0.0) return prior_.alpha;
  return std::clamp(sxy / sxx, prior_.min_alpha, prior_.max_alpha);
}

std::optional<double> CurveLearner::one_node_rate() const {
  const std::map<int, Measured> seen = rates_seen();
  if (seen.empty()) return std::nullopt;
  // Anchor the fit at the count measured longest: that rate is the best known.
  const auto longest = std::max_element(seen.begin(), seen.end(), [](const auto& a, const auto& b) {
    return a.second.seconds < b.second.seconds;
  });
  const double rate = longest->second.rate() / std::pow(longest->first, alpha());
  if (!(rate > 0.0) || !std::isfinite(rate)) return std::nullopt;
  return std::min(rate, bounds::kMaxSamplesPerS);
}

ScalingCurve CurveLearner::curve(double fallback_one_node_rate) const {
  const double one = one_node_rate().value_or(fallback_one_node_rate);
  const double a = alpha();
  std::vector<ScalingCurve::Point> points;
  // (Capped: a job reporting absurd progress must not make a curve the allocator refuses. The
  // rates are > 0: `one` is, and rates_seen() holds only counts with progress.)
  auto capped = [](double rate) { return std::min(rate, bounds::kMaxSamplesPerS); };
  auto predicted = [&](int n) { return capped(one * std::pow(n, a)); };
  // Powers of two keep the curve small; measured counts are exact where the job has run.
  std::map<int, double> rate_at;
  for (int n = 1; n < max_nodes_; n = (n > max_nodes_ / 2) ? max_nodes_ : 2 * n) {
    rate_at[n] = predicted(n);
  }
  rate_at[max_nodes_] = predicted(max_nodes_);
  for (const auto& [nodes, m] : rates_seen())
    if (nodes <= max_nodes_) rate_at[nodes] = capped(m.rate());
  points.reserve(rate_at.size());
  for (const auto& [nodes, rate] : rate_at) points.push_back({nodes, rate});
  return ScalingCurve(std::move(points));
}

double CurveLearner::up_cost_s() const {
  return ups_ > 0 ? up_stall_s_ / ups_ : prior_.up_cost_s;
}

double CurveLearner::down_cost_s() const {
  return downs_ > 0 ? down_stall_s_ / downs_ : prior_.down_cost_s;
}

}  // namespace gaptrain::sim
