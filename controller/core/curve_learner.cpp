#include "core/curve_learner.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <vector>

#include "gaptrain/bounds.hpp"

namespace gaptrain::core {

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
  const double rate = extrapolated(seen, 1);
  if (!(rate > 0.0) || !std::isfinite(rate)) return std::nullopt;
  return std::min(rate, bounds::kMaxSamplesPerS);
}

double CurveLearner::extrapolated(const std::map<int, Measured>& seen, int nodes) const {
  const double a = alpha();
  if (const auto exact = seen.find(nodes); exact != seen.end()) return exact->second.rate();
  const auto above = seen.upper_bound(nodes);
  if (above != seen.begin() && above != seen.end()) {
    // Between two measured counts: the measured shape (log-log interpolation), whatever the
    // prior or the fit over all counts says. A job that is slower on 4 nodes than on 1 is
    // slower on 2 than on 1 too.
    const auto below = std::prev(above);
    const double t = (std::log(nodes) - std::log(below->first)) /
                     (std::log(above->first) - std::log(below->first));
    return std::exp(std::log(below->second.rate()) +
                    t * (std::log(above->second.rate()) - std::log(below->second.rate())));
  }
  // Outside the measured counts: on from the nearest measured point at the fitted exponent, never
  // above the fit anchored at the count measured longest (a short glitch must not promise more).
  const auto nearest = above == seen.end() ? std::prev(seen.end()) : seen.begin();
  const auto longest = std::max_element(seen.begin(), seen.end(), [](const auto& x, const auto& y) {
    return x.second.seconds < y.second.seconds;
  });
  const auto line_through = [&](const auto& point) {
    return point.second.rate() * std::pow(static_cast<double>(nodes) / point.first, a);
  };
  return std::min(line_through(*nearest), line_through(*longest));
}

ScalingCurve CurveLearner::curve(double fallback_one_node_rate) const {
  const std::map<int, Measured> seen = rates_seen();
  const double a = alpha();
  // (Capped: a job reporting absurd progress must not make a curve the allocator refuses. The
  // rates are > 0: the fallback is, and rates_seen() holds only counts with progress.)
  auto capped = [](double rate) { return std::min(rate, bounds::kMaxSamplesPerS); };
  auto predicted = [&](int n) {
    return capped(seen.empty() ? fallback_one_node_rate * std::pow(n, a) : extrapolated(seen, n));
  };
  // Powers of two keep the curve small; measured counts are exact where the job has run.
  std::map<int, double> rate_at;
  for (int n = 1; n < max_nodes_; n = (n > max_nodes_ / 2) ? max_nodes_ : 2 * n) {
    rate_at[n] = predicted(n);
  }
  rate_at[max_nodes_] = predicted(max_nodes_);
  for (const auto& [nodes, m] : seen)
    if (nodes <= max_nodes_) rate_at[nodes] = capped(m.rate());
  std::vector<ScalingCurve::Point> points;
  points.reserve(rate_at.size());
  for (const auto& [nodes, rate] : rate_at) points.push_back({nodes, rate});
  return ScalingCurve(std::move(points));
}

std::map<int, double> CurveLearner::measured_rates() const {
  std::map<int, double> rates;
  for (const auto& [nodes, m] : rates_seen()) rates[nodes] = m.rate();
  return rates;
}

double CurveLearner::up_cost_s() const {
  return ups_ > 0 ? up_stall_s_ / ups_ : prior_.up_cost_s;
}

double CurveLearner::down_cost_s() const {
  return downs_ > 0 ? down_stall_s_ / downs_ : prior_.down_cost_s;
}

}  // namespace gaptrain::core
