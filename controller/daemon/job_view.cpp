#include "job_view.hpp"

#include <algorithm>
#include <cstddef>
#include <map>
#include <vector>

#include "gaptrain/scaling_curve.hpp"
#include "goodput_json.hpp"

namespace gaptrain::daemon {

namespace {

// The recent rate is taken over at least this long a stretch of the latest progress.
constexpr double kRecentS = 60.0;

Json::Value pair(double a, double b) {
  Json::Value point(Json::arrayValue);
  point.append(a);
  point.append(b);
  return point;
}

Json::Value rate_between(const core::ProgressPoint& from, const core::ProgressPoint& to) {
  if (!(to.time > from.time) || to.samples_done < from.samples_done) return Json::nullValue;
  return (to.samples_done - from.samples_done) / (to.time - from.time);
}

// What the curve says of `nodes` nodes: its measured and assumed points together.
Json::Value curve_rate(const core::JobRecord& job, int nodes) {
  if (nodes <= 0) return Json::nullValue;
  std::map<int, double> points(job.measured.begin(), job.measured.end());
  for (const ScalingCurve::Point& p : job.assumed) points.try_emplace(p.nodes, p.samples_per_s);
  std::vector<ScalingCurve::Point> all;
  for (const auto& [n, rate] : points) {
    if (rate > 0.0) all.push_back({n, rate});
  }
  if (all.empty()) return Json::nullValue;
  try {
    return ScalingCurve(std::move(all)).at(nodes);
  } catch (const std::exception&) {
    return Json::nullValue;  // not a curve the allocator would take: nothing to compare with
  }
}

Json::Value throughput(const core::JobRecord& job) {
  Json::Value t(Json::objectValue);
  const int nodes =
      job.nodes_over_time.empty() || job.ended_at ? 0 : job.nodes_over_time.back().nodes;
  t["nodes"] = nodes;
  t["samples_per_s"] = Json::nullValue;
  t["recent_samples_per_s"] = Json::nullValue;
  if (job.progress.size() >= 2) {
    t["samples_per_s"] = rate_between(job.progress.front(), job.progress.back());
    const core::ProgressPoint& last = job.progress.back();
    std::size_t from = job.progress.size() - 2;
    while (from > 0 && last.time - job.progress[from].time < kRecentS) --from;
    t["recent_samples_per_s"] = rate_between(job.progress[from], last);
  }
  t["curve_samples_per_s"] = curve_rate(job, nodes);
  return t;
}

}  // namespace

Json::Value job_view_json(const core::JobRecord& job, double now) {
  Json::Value v(Json::objectValue);
  v["job_id"] = job.job_id;
  v["user"] = job.user;
  v["state"] = job.ended_at ? "ended" : "running";
  v["ended_at"] = job.ended_at ? Json::Value(*job.ended_at) : Json::Value(Json::nullValue);
  v["now"] = now;
  Json::Value nodes(Json::arrayValue);
  for (const core::NodeCount& c : job.nodes_over_time) nodes.append(pair(c.time, c.nodes));
  v["nodes_over_time"] = nodes;
  Json::Value resizes(Json::arrayValue);
  for (const core::ResizeRecord& r : job.resizes) {
    Json::Value resize(Json::objectValue);
    resize["time"] = r.time;
    resize["kind"] = std::string(to_string(r.kind));
    resize["reason"] = r.reason;
    Json::Value names(Json::arrayValue);
    for (const std::string& node : r.nodes) names.append(node);
    resize["nodes"] = names;
    resizes.append(resize);
  }
  v["resizes"] = resizes;
  Json::Value progress(Json::arrayValue);
  for (const core::ProgressPoint& p : job.progress) progress.append(pair(p.time, p.samples_done));
  v["progress"] = progress;
  v["world_size"] = !job.progress.empty() && job.progress.back().world_size
                        ? Json::Value(*job.progress.back().world_size)
                        : Json::Value(Json::nullValue);
  v["throughput"] = throughput(job);
  Json::Value curve(Json::objectValue);
  Json::Value measured(Json::arrayValue);
  for (const auto& [n, rate] : job.measured) measured.append(pair(n, rate));
  Json::Value assumed(Json::arrayValue);
  for (const ScalingCurve::Point& p : job.assumed) assumed.append(pair(p.nodes, p.samples_per_s));
  curve["source"] = job.curve_source;
  curve["measured"] = measured;
  curve["assumed"] = assumed;
  v["curve"] = curve;
  put_goodput_json(v, job.batch, job.noise_scale, job.noise_scale_source);
  v["node_hours"] = node_hours(job, now);
  v["resize_lost_s"] = resize_lost_s(job, now);
  return v;
}

}  // namespace gaptrain::daemon
