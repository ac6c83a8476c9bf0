#include "gaptrain/goodput.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "gaptrain/bounds.hpp"

namespace gaptrain {
namespace {

constexpr long kUnbounded = std::numeric_limits<long>::max();

int ceil_div(long a, long b) {
  return static_cast<int>((a + b - 1) / b);
}

// The global batches adaptive compares: about 50 geometric steps from tuned to max, both ends
// included, each once.
std::vector<long> candidates(const BatchRange& range) {
  std::vector<long> out{range.tuned};
  const double ratio = std::pow(static_cast<double>(range.max) / range.tuned, 1.0 / 49.0);
  for (double m = range.tuned * ratio; m < range.max; m *= ratio) {
    const long rounded = std::lround(m);
    if (rounded > out.back() && rounded < range.max) out.push_back(rounded);
  }
  if (range.max > out.back()) out.push_back(range.max);
  return out;
}

// `global` samples a step on `nodes` nodes: as many nodes as can get a sample, the fewest
// micro-steps that keep a node's share within `cap`, the share rounded up, or down where `most`
// (the job's largest batch, for adaptive) would be passed.
BatchChoice split(const StepTimeModel& model, const BatchRange& range, double noise_scale,
                  int nodes, long global, int cap, long most) {
  BatchChoice c;
  c.nodes = static_cast<int>(std::min<long>(nodes, global));
  c.accumulation = ceil_div(global, static_cast<long>(c.nodes) * cap);
  const long micro_steps = static_cast<long>(c.nodes) * c.accumulation;
  c.per_node = ceil_div(global, micro_steps);
  if (c.per_node * micro_steps > most && most / micro_steps >= 1) {
    c.per_node = static_cast<int>(most / micro_steps);
  }
  c.global = static_cast<long>(c.nodes) * c.per_node * c.accumulation;
  c.samples_per_s = model.samples_per_s(c.nodes, c.per_node, c.accumulation);
  c.efficiency = statistical_efficiency(noise_scale, range.tuned, static_cast<double>(c.global));
  c.goodput = c.samples_per_s * c.efficiency;
  c.lr_gain = adascale_gain(noise_scale, range.tuned, static_cast<double>(c.global));
  return c;
}

}  // namespace

double StepTimeModel::sync_at(int nodes) const {
  if (nodes <= 1 || sync_s.empty()) return 0.0;
  auto above = sync_s.lower_bound(nodes);
  if (above == sync_s.end()) return std::prev(above)->second;
  if (above->first == nodes) return above->second;
  const auto [n0, s0] =
      above == sync_s.begin() ? std::pair<const int, double>{1, 0.0} : *std::prev(above);
  const double t = static_cast<double>(nodes - n0) / (above->first - n0);
  return s0 + t * (above->second - s0);
}

double StepTimeModel::samples_per_s(int nodes, int per_node, int accumulation) const {
  const double step_s = accumulation * (fixed_s + per_sample_s * per_node) + sync_at(nodes);
  if (!(step_s > 0.0)) return 0.0;
  return static_cast<double>(nodes) * per_node * accumulation / step_s;
}

StepTimeModel StepTimeModel::from_curve(const ScalingCurve& curve, int per_node_batch) {
  StepTimeModel model;
  const double one = curve.at(1);
  model.per_sample_s = 1.0 / one;
  auto sync = [&](int nodes) {
    return std::max(0.0, per_node_batch * (nodes / curve.at(nodes) - 1.0 / one));
  };
  for (const ScalingCurve::Point& p : curve.points()) {
    if (p.nodes > 1) model.sync_s[p.nodes] = sync(p.nodes);
  }
  // Beyond its last point a curve stays flat: the all-reduce grows with n there, linearly, so
  // one far point carries the flat part on.
  if (curve.points().back().nodes < bounds::kMaxNodes) {
    model.sync_s[bounds::kMaxNodes] = sync(bounds::kMaxNodes);
  }
  return model;
}

double statistical_efficiency(double noise_scale, double tuned, double global) {
  if (!std::isfinite(noise_scale)) return 1.0;
  const double phi = std::max(0.0, noise_scale);
  return (phi + tuned) / (phi + global);
}

double adascale_gain(double noise_scale, double tuned, double global) {
  return global / tuned * statistical_efficiency(noise_scale, tuned, global);
}

int max_per_node(const BatchRange& range, int min_nodes) {
  return range.max_per_node > 0 ? range.max_per_node
                                : ceil_div(range.tuned, std::max(1, min_nodes));
}

BatchChoice choose_batch(const StepTimeModel& model, const BatchRange& range, int min_nodes,
                         double noise_scale, int nodes, BatchRule rule) {
  const int cap = max_per_node(range, min_nodes);
  nodes = std::max(1, nodes);
  switch (rule) {
    case BatchRule::global:
      return split(model, range, noise_scale, nodes, range.tuned, cap, kUnbounded);
    case BatchRule::per_node: {
      const long global = static_cast<long>(nodes) * ceil_div(range.tuned, std::max(1, min_nodes));
      return split(model, range, noise_scale, nodes, global, cap, kUnbounded);
    }
    case BatchRule::adaptive: break;
  }
  BatchChoice best;
  for (const long global : candidates(range)) {
    const BatchChoice c = split(model, range, noise_scale, nodes, global, cap, range.max);
    if (best.nodes == 0 || c.goodput > best.goodput) best = c;  // ties: the smaller batch
  }
  return best;
}

ScalingCurve goodput_curve(const StepTimeModel& model, const BatchRange& range, int min_nodes,
                           int max_nodes, double noise_scale, BatchRule rule) {
  std::vector<ScalingCurve::Point> points;
  max_nodes = std::clamp(max_nodes, 1, bounds::kMaxNodes);
  for (int n = 1; n <= max_nodes;
       n = n < 64 ? n + 1
                  : std::max(n + 1, static_cast<int>(std::lround(n * std::exp2(1.0 / 32))))) {
    const BatchChoice c = choose_batch(model, range, min_nodes, noise_scale, n, rule);
    const double value = rule == BatchRule::adaptive ? c.goodput : c.samples_per_s;
    points.push_back({n, std::clamp(value, 1e-9, bounds::kMaxSamplesPerS)});
  }
  if (points.back().nodes != max_nodes) {
    const BatchChoice c = choose_batch(model, range, min_nodes, noise_scale, max_nodes, rule);
    const double value = rule == BatchRule::adaptive ? c.goodput : c.samples_per_s;
    points.push_back({max_nodes, std::clamp(value, 1e-9, bounds::kMaxSamplesPerS)});
  }
  return ScalingCurve(std::move(points));
}

}  // namespace gaptrain
