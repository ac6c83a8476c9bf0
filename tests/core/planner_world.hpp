// The small clusters the planner's tests (planner_test.cpp, queue_policy_test.cpp) plan on.
#pragma once

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "core/cluster.hpp"
#include "core/elastic_jobs.hpp"
#include "core/planner.hpp"

namespace gaptrain::core::planner_world {

inline constexpr std::int64_t kNow = 1'700'000'000;
using Nodes = std::vector<std::string>;

// The idle nodes a reclaim keeps, whoever for.
inline std::set<std::string> kept_nodes(const Reclaim& reclaim) {
  std::set<std::string> nodes;
  for (const auto& [node, kept] : reclaim.kept_idle) nodes.insert(node);
  return nodes;
}

// n1..n`count`, the ones in `busy` allocated (to elastic or regular jobs), the rest idle.
inline Snapshot cluster(int count, const Nodes& busy) {
  Snapshot s;
  s.taken_at = kNow;
  for (int i = 1; i <= count; ++i) {
    const std::string name = "n" + std::to_string(i);
    const bool allocated = std::find(busy.begin(), busy.end(), name) != busy.end();
    s.nodes.push_back({name, allocated ? NodeState::allocated : NodeState::idle, kNow - 600});
  }
  return s;
}

// A running elastic job as Slurm and the daemon see it: linear scaling, a 5-minute lease.
inline ElasticJob elastic_job(Snapshot& s, std::uint32_t id, const Nodes& nodes, int min, int max) {
  Job job;
  job.id = id;
  job.state = JobState::running;
  job.partition = "elastic";
  job.nodes = nodes;
  job.batch_host = nodes.front();
  job.start_time = kNow - 60;
  job.end_time = kNow + 240;
  s.jobs.push_back(job);

  ElasticJob e;
  e.job_id = id;
  e.nodes = nodes;
  e.batch_host = nodes.front();
  e.given.min_nodes = min;
  e.given.max_nodes = max;
  e.curve = ScalingCurve({{1, 100.0}, {max, 100.0 * max}});
  e.up_cost_s = 10.0;
  e.down_cost_s = 10.0;
  return e;
}

// A pending job of `partition`, added to the snapshot.
inline Job& add_pending(Snapshot& s, std::uint32_t id, const std::string& partition) {
  Job job;
  job.id = id;
  job.state = JobState::pending;
  job.partition = partition;
  s.jobs.push_back(job);
  return s.jobs.back();
}

// A regular job backfill planned to start at `start` on `planned`.
inline void add_pending_regular(Snapshot& s, std::uint32_t id, std::int64_t start,
                                const Nodes& planned) {
  Job& job = add_pending(s, id, "regular");
  job.start_time = start;
  job.sched_nodes = planned;
}

// A regular job that waits for nodes (Slurm's reason Resources), with no backfill plan yet.
inline Job& add_waiting_regular(Snapshot& s, std::uint32_t id, std::uint32_t nodes,
                                std::uint32_t priority = 100) {
  Job& job = add_pending(s, id, "regular");
  job.min_nodes = nodes;
  job.priority = priority;
  job.reason = PendingReason::resources;
  return job;
}

// The plan's action for `job_id`, or null.
inline const Action* action_for(const Plan& p, std::uint32_t job_id) {
  for (const Action& a : p.actions)
    if (a.job_id == job_id) return &a;
  return nullptr;
}

}  // namespace gaptrain::core::planner_world
