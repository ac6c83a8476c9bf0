// The SWF replay with FCFS + EASY backfill and its backfill-plan predictions (easy_backfill.hpp).
#include "simulator/easy_backfill.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <ostream>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "gaptrain/input_error.hpp"
#include "simulator/workload_io.hpp"

namespace gaptrain::sim::easy_backfill_test {
namespace {

constexpr double kInf = kUnknownEnd;

SwfJob swf_job(long long id, double submit_s, int nodes, double run_s, double requested_s) {
  return {
      .id = id, .submit_s = submit_s, .run_s = run_s, .nodes = nodes, .requested_s = requested_s};
}

SwfLog swf_log(int max_nodes, std::vector<SwfJob> jobs) {
  SwfLog log;
  log.max_nodes = max_nodes;
  log.jobs = std::move(jobs);
  return log;
}

// One update with the time of its step, so that a whole trace compares as one list.
struct Update {
  double time_s;
  int node;
  bool idle;
  double predicted_end_s;
  double actual_end_s;
  bool operator==(const Update&) const = default;
};

std::ostream& operator<<(std::ostream& out, const Update& u) {
  return out << "{t=" << u.time_s << " node " << u.node << (u.idle ? " idle" : " busy")
             << " predicted " << u.predicted_end_s << " actual " << u.actual_end_s << "}";
}

Update idle_at(double time_s, int node, double predicted_end_s, double actual_end_s) {
  return {time_s, node, true, predicted_end_s, actual_end_s};
}
Update busy_at(double time_s, int node) {
  return {time_s, node, false, kInf, kInf};
}

std::vector<Update> updates(const HoleTrace& trace) {
  std::vector<Update> all;
  for (const TraceStep& step : trace.steps) {
    for (const NodeUpdate& u : step.updates) {
      all.push_back({step.time_s, u.node, u.idle, u.predicted_end_s, u.actual_end_s});
    }
  }
  return all;
}

// Per node, the intervals it is idle: from a busy->idle update to the next busy update (or the
// trace end). Nodes are busy until their first update.
using Intervals = std::vector<std::pair<double, double>>;
std::vector<Intervals> idle_intervals(const HoleTrace& trace) {
  std::vector<Intervals> idle(trace.node_names.size());
  std::vector<double> idle_since(trace.node_names.size(), -1.0);
  for (const TraceStep& step : trace.steps) {
    for (const NodeUpdate& u : step.updates) {
      double& since = idle_since[static_cast<std::size_t>(u.node)];
      if (u.idle && since < 0) since = step.time_s;
      if (!u.idle && since >= 0) {
        idle[static_cast<std::size_t>(u.node)].emplace_back(since, step.time_s);
        since = -1.0;
      }
    }
  }
  for (std::size_t node = 0; node < idle.size(); ++node) {
    if (idle_since[node] >= 0) idle[node].emplace_back(idle_since[node], trace.end_s);
  }
  return idle;
}

// 4 nodes; J2 is backfilled on a node the head leaves over, J3 is not (it would delay the head),
// J4 is backfilled because it ends by the head's shadow time.
//
//   job  submit  nodes  run  requested
//   J0      0      2    100     100
//   J1     10      3     50      50
//   J2     20      1    200     200
//   J3     30      1     20     150
//   J4     40      1     50      60
//
// t=0   J0 starts on n0,n1. Idle n2,n3; nothing queued, so no prediction.
// t=10  J1 (3 nodes) does not fit: shadow time 100 (J0's requested end frees 2 nodes), extra
//       nodes 2+2-3 = 1. Plan: J1 at 100 takes the lowest-index nodes free by 100, n0,n1,n2, so
//       n2 is predicted to end at 100; n3 is in no plan (unknown).
// t=20  J2 fits and ends after 100 (220) but needs 1 <= 1 extra node: backfilled on n2. Extra 0.
//       Plan: J1 at 100 now takes n0,n1,n3: n3 predicted 100.
// t=30  J3 would end at 180 > 100 and extra is 0: not backfilled. The plan is unchanged, so the
//       trace has no step at 30.
// t=40  J4 ends by 40+60 = 100 <= 100: backfilled on n3 (it runs 50 s: ends at 90).
// t=90  J4 ends: n3 idle; J1 still does not fit, J3 still may not start. Plan: n3 predicted 100.
// t=100 J0 ends: J1 starts on n0,n1,n3 (n0,n1 stay busy: no update for them).
// t=150 J1 ends: J3 starts on n0 (runs 20 s); n1 and n3 idle with nothing queued.
// t=170 J3 ends: n0 idle.  t=220 J2 ends: n2 idle; the trace ends.
// Actual ends: each idle update ends at the node's next busy update (n2 at 20, n3 at 40 and 100).
SwfLog hand_checked_log() {
  return swf_log(
      4, {swf_job(0, 0, 2, 100, 100), swf_job(1, 10, 3, 50, 50), swf_job(2, 20, 1, 200, 200),
          swf_job(3, 30, 1, 20, 150), swf_job(4, 40, 1, 50, 60)});
}

TEST(EasyBackfill, HandCheckedScheduleAndPredictions) {
  const HoleTrace trace = replay_easy_backfill(hand_checked_log());
  EXPECT_EQ(trace.node_names, (std::vector<std::string>{"n1", "n2", "n3", "n4"}));
  EXPECT_TRUE(trace.has_plan);
  EXPECT_EQ(trace.end_s, 220.0);
  const std::vector<Update> expected = {
      idle_at(0, 2, kInf, 20),
      idle_at(0, 3, kInf, 40),  // J0 on n0,n1
      idle_at(10, 2, 100, 20),  // J1's plan takes n2
      busy_at(20, 2),
      idle_at(20, 3, 100, 40),   // J2 backfilled; plan takes n3
      busy_at(40, 3),            // J4 backfilled
      idle_at(90, 3, 100, 100),  // J4 done
      busy_at(100, 3),           // J1 starts
      idle_at(150, 1, kInf, kInf),
      idle_at(150, 3, kInf, kInf),  // J1 done, J3 on n0
      idle_at(170, 0, kInf, kInf),  // J3 done
      idle_at(220, 2, kInf, kInf),  // J2 done
  };
  EXPECT_EQ(updates(trace), expected);

  const std::vector<Intervals> idle = idle_intervals(trace);
  EXPECT_EQ(idle[0], (Intervals{{170, 220}}));
  EXPECT_EQ(idle[1], (Intervals{{150, 220}}));
  EXPECT_EQ(idle[2], (Intervals{{0, 20}, {220, 220}}));
  EXPECT_EQ(idle[3], (Intervals{{0, 40}, {90, 100}, {150, 220}}));
}

// 4 nodes, all submitted at 0: A (2 nodes, 100 s) on n0,n1; B (1 node, 200 s) on n2; head C
// (2 nodes, requested 50) waits for A: shadow 100. D (3 nodes) does not fit. The plan gives C
// the lowest-index nodes free by 100, n0,n1 (not idle n3), planned free again at 150; D is
// planned at 150 on n0,n1,n3, so idle n3's hole is predicted to end at 150, when D really
// starts. At 100 C starts and the plan for n3 stays 150: no step.
TEST(EasyBackfill, AnIdleNodeTheHeadDoesNotTakeIsPredictedByALaterJob) {
  const HoleTrace trace =
      replay_easy_backfill(swf_log(4, {swf_job(0, 0, 2, 100, 100), swf_job(1, 0, 1, 200, 200),
                                       swf_job(2, 0, 2, 50, 50), swf_job(3, 0, 3, 10, 10)}));
  const std::vector<Update> expected = {
      idle_at(0, 3, 150, 150),     busy_at(150, 3),
      idle_at(160, 0, kInf, kInf), idle_at(160, 1, kInf, kInf),
      idle_at(160, 3, kInf, kInf), idle_at(200, 2, kInf, kInf),
  };
  EXPECT_EQ(updates(trace), expected);
  EXPECT_EQ(trace.end_s, 200.0);
}

TEST(EasyBackfill, AJobRunsAtMostItsRequestedTime) {
  // Run 500 s but 100 s requested: the scheduler kills it at 100.
  const HoleTrace trace = replay_easy_backfill(swf_log(2, {swf_job(0, 0, 1, 500, 100)}));
  const std::vector<Update> expected = {idle_at(0, 1, kInf, kInf), idle_at(100, 0, kInf, kInf)};
  EXPECT_EQ(updates(trace), expected);
  EXPECT_EQ(trace.end_s, 100.0);
}

// 2 nodes: J0 holds n0 for 1000 s; J1 (2 nodes) is planned at 1000 on n0,n1.
SwfLog long_wait_log() {
  return swf_log(2, {swf_job(0, 0, 1, 1000, 1000), swf_job(1, 0, 2, 10, 10)});
}

TEST(EasyBackfill, PredictedEndIsUnknownBeyondThePlanWindow) {
  const HoleTrace within = replay_easy_backfill(long_wait_log(), {.plan_window_s = 1000.0});
  ASSERT_FALSE(within.steps.empty());
  EXPECT_EQ(updates(within).front(), idle_at(0, 1, 1000, 1000));

  const HoleTrace beyond = replay_easy_backfill(long_wait_log(), {.plan_window_s = 999.0});
  EXPECT_EQ(updates(beyond).front(), idle_at(0, 1, kInf, 1000));
}

TEST(EasyBackfill, NoPlannedJobsMeansNoPredictions) {
  const HoleTrace trace = replay_easy_backfill(long_wait_log(), {.plan_max_jobs = 0});
  EXPECT_EQ(updates(trace).front(), idle_at(0, 1, kInf, 1000));
}

TEST(EasyBackfill, JobsAreReplayedInSubmitOrderFromTheFirstSubmit) {
  // The same jobs as the hand-checked log, shifted by 5000 s and listed out of order.
  std::vector<SwfJob> jobs = hand_checked_log().jobs;
  for (SwfJob& job : jobs) job.submit_s += 5000.0;
  std::swap(jobs[0], jobs[3]);
  std::swap(jobs[1], jobs[4]);
  const HoleTrace trace = replay_easy_backfill(swf_log(4, jobs));
  EXPECT_EQ(updates(trace), updates(replay_easy_backfill(hand_checked_log())));
  EXPECT_EQ(trace.end_s, 220.0);
}

TEST(EasyBackfill, NodeNamesArePaddedToTheMachineWidth) {
  const HoleTrace trace = replay_easy_backfill(swf_log(100, {swf_job(0, 0, 1, 10, 10)}));
  ASSERT_EQ(trace.node_names.size(), 100u);
  EXPECT_EQ(trace.node_names.front(), "n001");
  EXPECT_EQ(trace.node_names.back(), "n100");
}

TEST(EasyBackfill, AnEmptyLogGivesAnEmptyTrace) {
  const HoleTrace trace = replay_easy_backfill(swf_log(3, {}));
  EXPECT_EQ(trace.node_names.size(), 3u);
  EXPECT_TRUE(trace.steps.empty());
  EXPECT_EQ(trace.end_s, 0.0);
}

TEST(EasyBackfill, RejectsJobsThatCannotRun) {
  try {
    replay_easy_backfill(swf_log(4, {swf_job(0, 0, 1, 10, 10), swf_job(7, 0, 5, 10, 10)}));
    ADD_FAILURE() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "jobs[1]");
    EXPECT_NE(std::string(e.what()).find("id 7"), std::string::npos) << e.what();
  }
  EXPECT_THROW(replay_easy_backfill(swf_log(4, {swf_job(0, 0, 1, 0, 10)})), InputError);
  EXPECT_THROW(replay_easy_backfill(swf_log(0, {})), InputError);
  EXPECT_THROW(replay_easy_backfill(swf_log(4, {}), {.plan_max_jobs = -1}), InputError);
}

// The replay's semantics written the plain way, scanning every node for everything, with no
// early stop in the plan: the reference the fast replay must match exactly.
HoleTrace naive_replay(SwfLog log, const ReplayOptions& options) {
  std::stable_sort(log.jobs.begin(), log.jobs.end(),
                   [](const SwfJob& a, const SwfJob& b) { return a.submit_s < b.submit_s; });
  const double first_submit_s = log.jobs.front().submit_s;
  const auto n = static_cast<std::size_t>(log.max_nodes);
  std::vector<int> owner(n, -1);
  std::vector<double> requested_end(n), actual_end(n);
  std::vector<char> recorded_idle(n, 0);
  std::vector<double> recorded_end(n, kInf);
  std::vector<std::size_t> queue;
  std::size_t next = 0;
  const auto submit = [&](std::size_t j) { return log.jobs[j].submit_s - first_submit_s; };
  const auto free_count = [&] { return std::count(owner.begin(), owner.end(), -1); };
  const auto start = [&](std::size_t j, double now) {
    int need = log.jobs[j].nodes;
    for (std::size_t i = 0; i < n && need > 0; ++i) {
      if (owner[i] >= 0) continue;
      owner[i] = static_cast<int>(j);
      requested_end[i] = now + log.jobs[j].requested_s;
      actual_end[i] = now + std::min(log.jobs[j].run_s, log.jobs[j].requested_s);
      --need;
    }
  };
  HoleTrace trace;
  trace.node_names.resize(n);
  while (true) {
    double now = next < log.jobs.size() ? submit(next) : kInf;
    for (std::size_t i = 0; i < n; ++i) {
      if (owner[i] >= 0) now = std::min(now, actual_end[i]);
    }
    if (now == kInf) break;
    for (std::size_t i = 0; i < n; ++i) {
      if (owner[i] >= 0 && actual_end[i] == now) owner[i] = -1;
    }
    for (; next < log.jobs.size() && submit(next) == now; ++next) queue.push_back(next);

    while (!queue.empty() && log.jobs[queue.front()].nodes <= free_count()) {
      start(queue.front(), now);
      queue.erase(queue.begin());
    }
    if (!queue.empty()) {
      const int head = log.jobs[queue.front()].nodes;
      std::vector<double> ends;
      for (std::size_t i = 0; i < n; ++i) {
        if (owner[i] >= 0) ends.push_back(requested_end[i]);
      }
      std::sort(ends.begin(), ends.end());
      const double shadow = ends[static_cast<std::size_t>(head - free_count() - 1)];
      long extra = free_count() - head;
      for (const double end : ends) extra += end <= shadow ? 1 : 0;
      for (std::size_t q = 1; q < queue.size();) {
        const SwfJob& job = log.jobs[queue[q]];
        bool go = job.nodes <= free_count() && now + job.requested_s <= shadow;
        if (!go && job.nodes <= free_count() && job.nodes <= extra) {
          go = true;
          extra -= job.nodes;
        }
        if (go) {
          start(queue[q], now);
          queue.erase(queue.begin() + static_cast<std::ptrdiff_t>(q));
        } else {
          ++q;
        }
      }
    }

    std::vector<double> plan_free(n);
    for (std::size_t i = 0; i < n; ++i) plan_free[i] = owner[i] < 0 ? now : requested_end[i];
    std::vector<double> predicted(n, kInf);
    std::vector<char> claimed(n, 0);
    const std::size_t planned = std::min(queue.size(), std::size_t(options.plan_max_jobs));
    for (std::size_t q = 0; q < planned; ++q) {
      const SwfJob& job = log.jobs[queue[q]];
      std::vector<double> sorted = plan_free;
      std::sort(sorted.begin(), sorted.end());
      const double t = sorted[static_cast<std::size_t>(job.nodes - 1)];
      int need = job.nodes;
      for (std::size_t i = 0; i < n && need > 0; ++i) {
        if (plan_free[i] > t) continue;
        if (owner[i] < 0 && !claimed[i]) {
          claimed[i] = 1;
          predicted[i] = t <= now + options.plan_window_s ? t : kInf;
        }
        plan_free[i] = t + job.requested_s;
        --need;
      }
    }

    TraceStep step{now, {}};
    for (std::size_t i = 0; i < n; ++i) {
      const bool idle = owner[i] < 0;
      const double end = idle ? predicted[i] : kInf;
      if (idle == (recorded_idle[i] != 0) && end == recorded_end[i]) continue;
      recorded_idle[i] = idle;
      recorded_end[i] = end;
      step.updates.push_back({.node = static_cast<int>(i), .idle = idle, .predicted_end_s = end});
    }
    if (!step.updates.empty()) trace.steps.push_back(step);
    trace.end_s = now;
  }
  fill_actual_ends(trace);
  return trace;
}

// Random small logs with many ties (whole-minute times), kills and jobs of every width.
TEST(EasyBackfill, MatchesTheNaiveReplayOnRandomLogs) {
  std::mt19937 rng(7);
  for (int round = 0; round < 300; ++round) {
    const int nodes = std::uniform_int_distribution<int>(1, 12)(rng);
    std::uniform_int_distribution<int> minutes(1, 30);
    std::vector<SwfJob> jobs;
    const int count = std::uniform_int_distribution<int>(1, 40)(rng);
    for (int j = 0; j < count; ++j) {
      jobs.push_back(swf_job(j, 60.0 * minutes(rng) * (j % 4),
                             std::uniform_int_distribution<int>(1, nodes)(rng), 60.0 * minutes(rng),
                             60.0 * minutes(rng)));
    }
    const ReplayOptions options{.plan_window_s = 60.0 * minutes(rng),
                                .plan_max_jobs = std::uniform_int_distribution<int>(0, 6)(rng)};
    const SwfLog log = swf_log(nodes, jobs);
    ASSERT_EQ(updates(replay_easy_backfill(log, options)), updates(naive_replay(log, options)))
        << "round " << round;
  }
}

// The real KTH SP2 log (28k jobs, 100 nodes): every node-second the jobs ran is a busy
// node-second of the trace, and the plan never predicts a hole to end before it starts.
TEST(EasyBackfill, KthLogBusyTimeMatchesTheJobs) {
  const std::string path = GAPTRAIN_SHARED_DATA_DIR "/traces/KTH-SP2-1996-2.1-cln.swf.gz";
  const SwfLog log = parse_swf(read_input_file(path), path);
  const HoleTrace trace = replay_easy_backfill(log);

  double job_node_seconds = 0.0;
  for (const SwfJob& job : log.jobs)
    job_node_seconds += job.nodes * std::min(job.run_s, job.requested_s);
  double idle_node_seconds = 0.0;
  for (const Intervals& node : idle_intervals(trace)) {
    for (const auto& [from, to] : node) idle_node_seconds += to - from;
  }
  const double busy_node_seconds = log.max_nodes * trace.end_s - idle_node_seconds;
  EXPECT_NEAR(busy_node_seconds, job_node_seconds, 1e-9 * job_node_seconds);

  int predicted = 0;
  for (const Update& u : updates(trace)) {
    if (!u.idle) continue;
    EXPECT_GT(u.predicted_end_s, u.time_s) << u;
    EXPECT_GT(u.actual_end_s, u.time_s) << u;
    if (u.predicted_end_s != kInf) ++predicted;
  }
  EXPECT_GT(predicted, 0);
}

}  // namespace
}  // namespace gaptrain::sim::easy_backfill_test
