// What happened to each elastic job, for `gaptrain job ID`: its node count over time,
// every resize with its time, kind and reason, its progress as its launcher reported it, its
// learned curve, node-hours and the time lost to resizes. Kept while the job runs and, for the
// last `jobs_kept` ended jobs, after it ended; each job's points are bounded (older progress is
// thinned, the recent kept whole). Pure: every time comes in as an argument (Unix seconds).
//
// The wall clock can step (an NTP step, a resumed VM). A history kept on it would count a step
// forward as node-hours and as time lost to resizes, and a step back as negative spans. So the
// history keeps its own clock: Unix seconds that advance with the monotonic clock from the first
// `tick`, and every time given afterwards (read from the wall clock at that moment) is moved onto
// it. A progress point carries the training's own clock, another machine's: a stamp more than
// kMaxReportAgeS before the report's arrival, or more than kStepS after it, is that clock's and
// not the history's, and the point is placed at its arrival.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gaptrain/goodput.hpp"
#include "gaptrain/scaling_curve.hpp"

namespace gaptrain::core {

enum class ResizeKind { admit, grow, shrink, reclaim, requeue };

std::string_view to_string(ResizeKind kind);

struct ResizeRecord {
  double time = 0.0;
  ResizeKind kind = ResizeKind::grow;
  std::string reason;
  std::vector<std::string> nodes;  // the job's nodes after it (empty for a requeue)
};

struct ProgressPoint {
  double time = 0.0;  // when the training wrote it, else when its report arrived
  double samples_done = 0.0;
  std::optional<int> world_size;
};

struct NodeCount {
  double time = 0.0;
  int nodes = 0;
};

struct JobRecord {
  std::uint32_t job_id = 0;
  uid_t uid = 0;
  std::string user;
  std::optional<double> ended_at;
  std::deque<NodeCount> nodes_over_time;
  std::deque<ResizeRecord> resizes;
  std::deque<ProgressPoint> progress;
  // The learned curve: the rates measured per node count, and the curve's other points.
  // (A curve given at registration is all "assumed" points, with `curve_source` "given".)
  std::map<int, double> measured;
  std::vector<ScalingCurve::Point> assumed;
  std::string curve_source = "assumed";
  // A job with a batch range: the range, and the noise scale it is valued at.
  std::optional<BatchRange> batch;
  std::optional<double> noise_scale;
  std::string noise_scale_source;
  // Totals, kept whole when points are thinned: node-seconds up to the last node-count change,
  // and the training's stalls after resizes (from a resize to its next progress).
  double node_seconds = 0.0;
  double resize_lost_s = 0.0;
  std::optional<double> stalled_since;
  double samples_at_stall = 0.0;
};

struct HistoryLimits {
  std::size_t jobs_kept = 200;  // ended jobs
  std::size_t points_per_job = 4000;
};

class JobHistory {
 public:
  // How long before its arrival a progress point may have been written (the launcher reads the
  // progress file every half second); an older or future stamp is another clock's.
  static constexpr double kMaxReportAgeS = 5.0;
  // Smaller differences between the wall and the monotonic clock are not a step: the wall
  // clock's slew, whole-second readings, two machines' clocks a little apart.
  static constexpr double kStepS = 2.0;

  explicit JobHistory(HistoryLimits limits = {}) : limits_(limits) {}
  void set_limits(HistoryLimits limits);
  // The clocks now, before the calls below that pass times read from the wall clock at `wall`.
  // Without a tick the history takes times as given.
  void tick(double wall, double mono);
  // `wall` (read at the last tick) on the history's clock: what node_hours() and
  // resize_lost_s() take as `now`.
  double steady(double wall) const noexcept { return wall + shift_; }

  // The job's owner, and its node count at `time` (recorded when it changed).
  void nodes(std::uint32_t job_id, uid_t uid, const std::string& user, int count, double time);
  // A resize carried out at `time`; a job not seen before is added (an admission comes before
  // the job runs).
  void resize(std::uint32_t job_id, ResizeRecord record);
  // A launcher's report of progress; reports that repeat the last point are not kept again.
  void progress(std::uint32_t job_id, ProgressPoint point);
  void curve(std::uint32_t job_id, std::map<int, double> measured,
             std::vector<ScalingCurve::Point> assumed, std::string_view source);
  void goodput(std::uint32_t job_id, const std::optional<BatchRange>& batch,
               std::optional<double> noise_scale, std::string_view source);
  // The job ended (or left gaptrain's view) at `time`: kept among the last `jobs_kept`. A
  // requeued job that comes back (any of the calls above) continues its history, running.
  void ended(std::uint32_t job_id, double time);

  const JobRecord* find(std::uint32_t job_id) const;
  const std::map<std::uint32_t, JobRecord>& records() const noexcept { return records_; }

 private:
  JobRecord& record(std::uint32_t job_id);
  void thin(JobRecord& job) const;
  void forget_oldest_ended();

  HistoryLimits limits_;
  std::optional<double> wall_minus_mono_;  // at the first tick
  double shift_ = 0.0;       // the history's clock less the wall clock, since the last step
  double steady_now_ = 0.0;  // the history's clock at the last tick
  std::map<std::uint32_t, JobRecord> records_;
  std::deque<std::uint32_t> ended_order_;  // oldest end first
};

// Node-hours of `job` up to `now` (its end, when it ended).
double node_hours(const JobRecord& job, double now);
// Time lost to resizes up to `now`, a stall still in progress included.
double resize_lost_s(const JobRecord& job, double now);

}  // namespace gaptrain::core
