#include "core/job_history.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace gaptrain::core {

std::string_view to_string(ResizeKind kind) {
  switch (kind) {
    case ResizeKind::admit: return "admit";
    case ResizeKind::grow: return "grow";
    case ResizeKind::shrink: return "shrink";
    case ResizeKind::reclaim: return "reclaim";
    case ResizeKind::requeue: return "requeue";
  }
  return "grow";
}

void JobHistory::tick(double wall, double mono) {
  if (!wall_minus_mono_) wall_minus_mono_ = wall - mono;
  // Only a step moves the shift: the wall clock's slew and a caller's whole-second reading
  // leave it as it was.
  const double shift = mono + *wall_minus_mono_ - wall;
  if (std::abs(shift - shift_) > kStepS) shift_ = shift;
  steady_now_ = wall + shift_;
}

void JobHistory::set_limits(HistoryLimits limits) {
  limits_ = limits;
  for (auto& [id, job] : records_) thin(job);
  forget_oldest_ended();
}

JobRecord& JobHistory::record(std::uint32_t job_id) {
  JobRecord& job = records_[job_id];
  job.job_id = job_id;
  if (job.ended_at) {
    // A requeued job admitted or registered again: one history, running again.
    job.ended_at.reset();
    std::erase(ended_order_, job_id);
  }
  return job;
}

void JobHistory::nodes(std::uint32_t job_id, uid_t uid, const std::string& user, int count,
                       double time) {
  time = steady(time);
  JobRecord& job = record(job_id);
  job.uid = uid;
  if (!user.empty()) job.user = user;
  if (!job.nodes_over_time.empty()) {
    const NodeCount& last = job.nodes_over_time.back();
    if (last.nodes == count) return;
    job.node_seconds += last.nodes * std::max(0.0, time - last.time);
  }
  job.nodes_over_time.push_back({time, count});
  thin(job);
}

void JobHistory::resize(std::uint32_t job_id, ResizeRecord resize) {
  resize.time = steady(resize.time);
  JobRecord& job = record(job_id);
  job.resizes.push_back(resize);
  // The training stalls until it makes progress at its new size; an admission is its start.
  // A job that never reported progress (before this resize) loses nothing to it that anyone
  // could tell: counting from here made a job without progress report its whole run as lost.
  if (resize.kind != ResizeKind::admit && !job.stalled_since && !job.progress.empty()) {
    job.stalled_since = resize.time;
    job.samples_at_stall = job.progress.empty() ? 0.0 : job.progress.back().samples_done;
  }
  thin(job);
}

void JobHistory::progress(std::uint32_t job_id, ProgressPoint point) {
  if (wall_minus_mono_) {
    const double stamped = steady(point.time);
    const bool plausible =
        stamped >= steady_now_ - kMaxReportAgeS && stamped <= steady_now_ + kStepS;
    point.time = plausible ? stamped : steady_now_;
  }
  JobRecord& job = record(job_id);
  if (!job.progress.empty()) {
    const ProgressPoint& last = job.progress.back();
    if (last.time == point.time && last.samples_done == point.samples_done &&
        last.world_size == point.world_size) {
      return;
    }
  }
  if (job.stalled_since && point.samples_done > job.samples_at_stall) {
    job.resize_lost_s += std::max(0.0, point.time - *job.stalled_since);
    job.stalled_since.reset();
  }
  job.progress.push_back(point);
  thin(job);
}

void JobHistory::curve(std::uint32_t job_id, std::map<int, double> measured,
                       std::vector<ScalingCurve::Point> assumed, std::string_view source) {
  JobRecord& job = record(job_id);
  job.curve_source = source;
  job.measured = std::move(measured);
  job.assumed = std::move(assumed);
}

void JobHistory::goodput(std::uint32_t job_id, const std::optional<BatchRange>& batch,
                         std::optional<double> noise_scale, std::string_view source) {
  JobRecord& job = record(job_id);
  job.batch = batch;
  job.noise_scale = noise_scale;
  job.noise_scale_source = source;
}

void JobHistory::ended(std::uint32_t job_id, double time) {
  time = steady(time);
  const auto it = records_.find(job_id);
  if (it == records_.end() || it->second.ended_at) return;
  JobRecord& job = it->second;
  job.ended_at = time;
  if (!job.nodes_over_time.empty()) {
    const NodeCount& last = job.nodes_over_time.back();
    job.node_seconds += last.nodes * std::max(0.0, time - last.time);
    if (last.nodes != 0) job.nodes_over_time.push_back({time, 0});
  }
  if (job.stalled_since) {
    job.resize_lost_s += std::max(0.0, time - *job.stalled_since);
    job.stalled_since.reset();
  }
  ended_order_.push_back(job_id);
  forget_oldest_ended();
}

void JobHistory::forget_oldest_ended() {
  while (ended_order_.size() > limits_.jobs_kept) {
    records_.erase(ended_order_.front());
    ended_order_.pop_front();
  }
}

void JobHistory::thin(JobRecord& job) const {
  const std::size_t cap = std::max<std::size_t>(limits_.points_per_job, 2);
  // Progress: every other point of the older half goes, so the recent reports stay whole and
  // the series still spans the whole job (its first point is kept).
  if (job.progress.size() > cap) {
    const std::size_t older = job.progress.size() / 2;
    std::deque<ProgressPoint> kept;
    for (std::size_t i = 0; i < job.progress.size(); ++i) {
      if (i >= older || i % 2 == 0) kept.push_back(job.progress[i]);
    }
    job.progress = std::move(kept);
  }
  // Node counts and resizes change far less often: the oldest go (the totals stay whole).
  while (job.nodes_over_time.size() > cap) job.nodes_over_time.pop_front();
  while (job.resizes.size() > cap) job.resizes.pop_front();
}

const JobRecord* JobHistory::find(std::uint32_t job_id) const {
  const auto it = records_.find(job_id);
  return it == records_.end() ? nullptr : &it->second;
}

double node_hours(const JobRecord& job, double now) {
  double node_seconds = job.node_seconds;
  if (!job.ended_at && !job.nodes_over_time.empty()) {
    const NodeCount& last = job.nodes_over_time.back();
    node_seconds += last.nodes * std::max(0.0, now - last.time);
  }
  return node_seconds / 3600.0;
}

double resize_lost_s(const JobRecord& job, double now) {
  double lost = job.resize_lost_s;
  if (job.stalled_since) lost += std::max(0.0, now - *job.stalled_since);
  return lost;
}

}  // namespace gaptrain::core
