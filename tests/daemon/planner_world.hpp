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

namespace gaptrain::daemon::planner_world {

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
  e.min_nodes = min;
  e.max_nodes = max;
  e.curve = ScalingCurve({{1, 100.0}, {max, 100.0 * max}});
  e.up_cost_s = 10.0;
  e.down_cost_s = 10.0;
  return e;
}

}  // namespace gaptrain::daemon::planner_world
