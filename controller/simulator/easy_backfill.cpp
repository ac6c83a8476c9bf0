#include "simulator/easy_backfill.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
#include <map>
#include <queue>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gaptrain/bounds.hpp"
#include "gaptrain/input_error.hpp"

namespace gaptrain::sim {
namespace {

// ---- Input ----------------------------------------------------------------------------------

// A job as the replay sees it, times in seconds from the first submit.
struct Job {
  double submit_s = 0.0;
  double duration_s = 0.0;   // min(run, requested): the scheduler kills a job at its limit
  double requested_s = 0.0;  // what the scheduler plans with
  int nodes = 0;
};

void check_options(int max_nodes, const ReplayOptions& options) {
  if (max_nodes < 1 || max_nodes > bounds::kMaxNodes) {
    throw InputError("max_nodes", "expected a machine of 1 to " +
                                      std::to_string(bounds::kMaxNodes) + " nodes, got " +
                                      std::to_string(max_nodes));
  }
  if (!(options.plan_window_s >= 0.0)) {  // also rejects NaN
    throw InputError("plan_window_s",
                     "expected >= 0 seconds, got " + std::to_string(options.plan_window_s));
  }
  if (options.plan_max_jobs < 0) {
    throw InputError("plan_max_jobs",
                     "expected >= 0, got " + std::to_string(options.plan_max_jobs));
  }
}

Job replay_job(const SwfJob& swf, std::size_t index, int max_nodes) {
  const auto fail = [&](const std::string& problem) {
    throw InputError("jobs[" + std::to_string(index) + "]",
                     "(id " + std::to_string(swf.id) + ") " + problem);
  };
  if (swf.nodes < 1 || swf.nodes > max_nodes) {
    fail("nodes: expected 1.." + std::to_string(max_nodes) + ", got " + std::to_string(swf.nodes));
  }
  if (!std::isfinite(swf.submit_s)) fail("submit_s: expected a finite time");
  if (!(swf.run_s > 0.0) || !(swf.requested_s > 0.0) || !std::isfinite(swf.requested_s)) {
    fail("run_s and requested_s: expected finite times > 0, got " + std::to_string(swf.run_s) +
         " and " + std::to_string(swf.requested_s));
  }
  return {.submit_s = swf.submit_s,
          .duration_s = std::min(swf.run_s, swf.requested_s),
          .requested_s = swf.requested_s,
          .nodes = swf.nodes};
}

// The log's jobs in submit order (stable: ties keep file order), times from the first submit.
std::vector<Job> replay_jobs(const SwfLog& log) {
  std::vector<Job> jobs;
  jobs.reserve(log.jobs.size());
  for (std::size_t i = 0; i < log.jobs.size(); ++i) {
    jobs.push_back(replay_job(log.jobs[i], i, log.max_nodes));
  }
  std::stable_sort(jobs.begin(), jobs.end(),
                   [](const Job& a, const Job& b) { return a.submit_s < b.submit_s; });
  if (!jobs.empty()) {
    const double first_submit_s = jobs.front().submit_s;
    for (Job& job : jobs) job.submit_s -= first_submit_s;
  }
  return jobs;
}

// "n001".."n100" for 100 nodes: 1-based, zero-padded to the width of the node count so that
// names sort like indices.
std::vector<std::string> node_names(int count) {
  const std::size_t width = std::to_string(count).size();
  std::vector<std::string> names;
  names.reserve(static_cast<std::size_t>(count));
  for (int i = 1; i <= count; ++i) {
    const std::string digits = std::to_string(i);
    names.push_back("n" + std::string(width - digits.size(), '0') + digits);
  }
  return names;
}

// ---- Planning structure ---------------------------------------------------------------------

// Per-node planned free times under a min-tree, so that planning a job finds the lowest-index
// nodes free by its start without scanning every node for every planned job.
class FreeTimes {
 public:
  explicit FreeTimes(int nodes) {
    while (leaves_ < static_cast<std::size_t>(nodes)) leaves_ *= 2;
    min_s_.assign(2 * leaves_, kUnknownEnd);  // padding leaves are never free
  }

  // Leaf i becomes free_s(i) for every node i; O(n).
  template <typename FreeAt>
  void assign(int nodes, FreeAt free_s) {
    for (int i = 0; i < nodes; ++i) min_s_[leaf(i)] = free_s(i);
    for (std::size_t v = leaves_ - 1; v >= 1; --v) pull(v);
  }

  // Takes the `count` lowest-index nodes free by `time_s`, which must exist: each becomes free
  // at `free_s`, and taken(node, was_free_s) sees it, in index order. One descent visits only
  // subtrees holding a taken node, O(count log(n / count)) rather than O(count log n).
  template <typename Taken>
  void take(int count, double time_s, double free_s, Taken&& taken) {
    take_in(1, 0, leaves_, count, time_s, free_s, taken);
  }

 private:
  std::size_t leaf(int node) const { return leaves_ + static_cast<std::size_t>(node); }
  void pull(std::size_t v) { min_s_[v] = std::min(min_s_[2 * v], min_s_[2 * v + 1]); }

  template <typename Taken>
  void take_in(std::size_t v, std::size_t low, std::size_t high, int& count, double time_s,
               double free_s, Taken& taken) {
    if (count == 0 || min_s_[v] > time_s) return;
    if (high - low == 1) {
      taken(static_cast<int>(low), min_s_[v]);
      min_s_[v] = free_s;
      --count;
      return;
    }
    const std::size_t mid = (low + high) / 2;
    take_in(2 * v, low, mid, count, time_s, free_s, taken);
    take_in(2 * v + 1, mid, high, count, time_s, free_s, taken);
    pull(v);
  }

  std::size_t leaves_ = 1;
  std::vector<double> min_s_;  // heap layout: root 1, children of v at 2v and 2v+1
};

// The earliest time by which `nodes` nodes are free, given how many become free when.
double earliest_time_with(const std::map<double, int>& free_at, int nodes) {
  int available = 0;
  for (const auto& [time_s, count] : free_at) {
    available += count;
    if (available >= nodes) return time_s;
  }
  return kUnknownEnd;  // unreachable: every node is free at some time and jobs fit the machine
}

// The head job's reservation: its shadow time, and how many nodes free then it leaves over
// (which later jobs may hold past the shadow time without delaying it).
struct Reservation {
  double shadow_s = 0.0;
  int extra_nodes = 0;
};

// ---- The replay -----------------------------------------------------------------------------

class Replay {
 public:
  Replay(std::vector<Job> jobs, int nodes, const ReplayOptions& options)
      : jobs_(std::move(jobs)),
        nodes_(nodes),
        options_(options),
        idle_(static_cast<std::size_t>(nodes), 1),
        requested_end_s_(static_cast<std::size_t>(nodes), 0.0),
        job_nodes_(jobs_.size()),
        plan_free_s_(nodes),
        predicted_end_s_(static_cast<std::size_t>(nodes), kUnknownEnd),
        recorded_idle_(static_cast<std::size_t>(nodes), 0),
        recorded_end_s_(static_cast<std::size_t>(nodes), kUnknownEnd) {
    for (int node = 0; node < nodes; ++node) free_.insert(free_.end(), node);
  }

  HoleTrace run() {
    HoleTrace trace;
    trace.node_names = node_names(nodes_);
    trace.has_plan = true;
    while (next_submit_ < jobs_.size() || !ending_.empty()) {
      const double now = next_event_s();
      end_jobs(now);
      submit_jobs(now);
      schedule(now);
      plan(now);
      record(now, trace);
      trace.end_s = now;  // the last event is the last job's end
    }
    fill_actual_ends(trace);
    return trace;
  }

 private:
  using Ending = std::pair<double, int>;  // actual end, job

  double next_event_s() const {
    double next_s = kUnknownEnd;
    if (next_submit_ < jobs_.size()) next_s = jobs_[next_submit_].submit_s;
    if (!ending_.empty()) next_s = std::min(next_s, ending_.top().first);
    return next_s;
  }

  void end_jobs(double now) {
    while (!ending_.empty() && ending_.top().first == now) {
      const int index = ending_.top().second;
      ending_.pop();
      std::vector<int>& nodes = job_nodes_[static_cast<std::size_t>(index)];
      const double requested_end_s = requested_end_s_[static_cast<std::size_t>(nodes.front())];
      const auto at = nodes_free_at_.find(requested_end_s);
      if ((at->second -= static_cast<int>(nodes.size())) == 0) nodes_free_at_.erase(at);
      for (const int node : nodes) {
        idle_[static_cast<std::size_t>(node)] = 1;
        free_.insert(node);
      }
      std::vector<int>().swap(nodes);  // memory stays bounded by the running jobs
    }
  }

  void submit_jobs(double now) {
    for (; next_submit_ < jobs_.size() && jobs_[next_submit_].submit_s == now; ++next_submit_) {
      queue_.push_back(static_cast<int>(next_submit_));
    }
  }

  const Job& job(int index) const { return jobs_[static_cast<std::size_t>(index)]; }
  int free_count() const { return static_cast<int>(free_.size()); }

  // FCFS while the head fits, then EASY backfill around the head's reservation.
  void schedule(double now) {
    std::size_t started = 0;
    while (started < queue_.size() && job(queue_[started]).nodes <= free_count()) {
      start(queue_[started++], now);
    }
    queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(started));
    if (!queue_.empty() && !free_.empty()) backfill(now);
  }

  void backfill(double now) {
    const int head_nodes = job(queue_.front()).nodes;
    // Free nodes are not in nodes_free_at_: the head waits for the rest.
    const double shadow_s = earliest_time_with(nodes_free_at_, head_nodes - free_count());
    Reservation head{.shadow_s = shadow_s,
                     .extra_nodes = free_count() + nodes_free_by(shadow_s) - head_nodes};
    std::size_t kept = 1;
    for (std::size_t i = 1; i < queue_.size(); ++i) {
      if (may_backfill(job(queue_[i]), now, head)) {
        start(queue_[i], now);
      } else {
        queue_[kept++] = queue_[i];
      }
    }
    queue_.resize(kept);
  }

  // Nodes that running jobs free by `time_s`, by their requested ends.
  int nodes_free_by(double time_s) const {
    int count = 0;
    for (auto it = nodes_free_at_.begin(); it != nodes_free_at_.end() && it->first <= time_s;
         ++it) {
      count += it->second;
    }
    return count;
  }

  // A job may start now if it ends (by its requested time) before the head's shadow time, or
  // only uses nodes the head leaves over; those are then used up.
  bool may_backfill(const Job& candidate, double now, Reservation& head) const {
    if (candidate.nodes > free_count()) return false;
    if (now + candidate.requested_s <= head.shadow_s) return true;
    if (candidate.nodes > head.extra_nodes) return false;
    head.extra_nodes -= candidate.nodes;
    return true;
  }

  void start(int index, double now) {
    const Job& started = job(index);
    const double requested_end_s = now + started.requested_s;
    std::vector<int>& nodes = job_nodes_[static_cast<std::size_t>(index)];
    nodes.reserve(static_cast<std::size_t>(started.nodes));
    for (int k = 0; k < started.nodes; ++k) {  // the lowest-index free nodes
      const int node = *free_.begin();
      free_.erase(free_.begin());
      idle_[static_cast<std::size_t>(node)] = 0;
      requested_end_s_[static_cast<std::size_t>(node)] = requested_end_s;
      nodes.push_back(node);
    }
    nodes_free_at_[requested_end_s] += started.nodes;
    ending_.emplace(now + started.duration_s, index);
  }

  // Plans queued jobs on per-node free times and gives each idle node the earliest planned start
  // of a job handed that node. No queued job can be planned at `now` on an idle node: the
  // scheduling pass just started every job that fits now without delaying the head, and the plan
  // gives the head its reservation, so predicted ends lie after now.
  void plan(double now) {
    for (const int node : free_) predicted_end_s_[static_cast<std::size_t>(node)] = kUnknownEnd;
    if (queue_.empty() || free_.empty() || options_.plan_max_jobs == 0) return;

    std::map<double, int> free_at = start_plan(now);
    // A node's first planned job fixes its prediction (its planned free time only grows), so
    // planning stops once every idle node has one: on big machines most events stop early.
    int unpredicted = free_count();
    const std::size_t planned =
        std::min(queue_.size(), static_cast<std::size_t>(options_.plan_max_jobs));
    for (std::size_t q = 0; q < planned && unpredicted > 0; ++q) {
      unpredicted -= plan_job(job(queue_[q]), now, free_at);
    }
  }

  // Every node's planned free time is now (free) or its job's requested end (busy). Returns how
  // many nodes are free when.
  std::map<double, int> start_plan(double now) {
    plan_free_s_.assign(nodes_, [&](int node) {
      const auto n = static_cast<std::size_t>(node);
      return idle_[n] ? now : requested_end_s_[n];
    });
    std::map<double, int> free_at = nodes_free_at_;
    free_at[now] += free_count();
    return free_at;
  }

  // Plans `next` at its earliest start on the lowest-index nodes free by then. Returns how many
  // idle nodes it predicts.
  int plan_job(const Job& next, double now, std::map<double, int>& free_at) {
    const double start_s = earliest_time_with(free_at, next.nodes);
    const double end_s = start_s + next.requested_s;
    const double predicted_end_s = start_s <= now + options_.plan_window_s ? start_s : kUnknownEnd;
    int predicted = 0;
    // Taken nodes leave free_at in runs of equal free times: one map update per run.
    double run_s = 0.0;
    int run_count = 0;
    const auto leave_free_at = [&] {
      if (run_count == 0) return;
      const auto at = free_at.find(run_s);
      if ((at->second -= run_count) == 0) free_at.erase(at);
    };
    plan_free_s_.take(next.nodes, start_s, end_s, [&](int node, double was_free_s) {
      // An idle node's planned free time leaves `now` when a job first takes it: that job's
      // start is its predicted end.
      if (was_free_s == now && idle_[static_cast<std::size_t>(node)]) {
        predicted_end_s_[static_cast<std::size_t>(node)] = predicted_end_s;
        ++predicted;
      }
      if (run_count > 0 && was_free_s != run_s) {
        leave_free_at();
        run_count = 0;
      }
      run_s = was_free_s;
      ++run_count;
    });
    leave_free_at();
    free_at[end_s] += next.nodes;
    return predicted;
  }

  // One step with every node whose state, or (idle) predicted end, differs from the trace's.
  void record(double now, HoleTrace& trace) {
    TraceStep step{now, {}};
    for (std::size_t i = 0; i < idle_.size(); ++i) {
      const bool idle = idle_[i] != 0;
      const double predicted_end_s = idle ? predicted_end_s_[i] : kUnknownEnd;
      if (idle == (recorded_idle_[i] != 0) && predicted_end_s == recorded_end_s_[i]) continue;
      recorded_idle_[i] = idle ? 1 : 0;
      recorded_end_s_[i] = predicted_end_s;
      step.updates.push_back(
          {.node = static_cast<int>(i), .idle = idle, .predicted_end_s = predicted_end_s});
    }
    if (!step.updates.empty()) trace.steps.push_back(std::move(step));
  }

  // The workload.
  std::vector<Job> jobs_;
  int nodes_;
  ReplayOptions options_;
  std::size_t next_submit_ = 0;  // the next job to arrive
  std::vector<int> queue_;       // waiting jobs, in submit order

  // The machine.
  std::set<int> free_;                   // free nodes; begin() is the lowest index
  std::vector<char> idle_;               // per node: free
  std::vector<double> requested_end_s_;  // per busy node: its job's start + requested
  std::map<double, int> nodes_free_at_;  // requested end -> nodes running jobs free then
  std::priority_queue<Ending, std::vector<Ending>, std::greater<>> ending_;  // running jobs
  std::vector<std::vector<int>> job_nodes_;  // per running job: its nodes

  // The plan (rebuilt at every event) and what the trace says so far.
  FreeTimes plan_free_s_;
  std::vector<double> predicted_end_s_;  // per idle node
  std::vector<char> recorded_idle_;      // busy (not offered) until the first update
  std::vector<double> recorded_end_s_;
};

}  // namespace

HoleTrace replay_easy_backfill(const SwfLog& log, const ReplayOptions& options) {
  check_options(log.max_nodes, options);
  return Replay(replay_jobs(log), log.max_nodes, options).run();
}

}  // namespace gaptrain::sim
