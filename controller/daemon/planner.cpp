#include "planner.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "allocator/allocator.hpp"

namespace gaptrain::daemon {

namespace {

bool contains(const std::vector<std::string>& nodes, const std::string& node) {
  return std::find(nodes.begin(), nodes.end(), node) != nodes.end();
}

// A pending job of the regular workload: not elastic (managed, or pending in the elastic
// partition, which waits for holes and never reclaims).
bool is_regular_pending(const Job& job, const std::set<std::uint32_t>& elastic_ids,
                        const std::string& elastic_partition) {
  return job.state == JobState::pending && !elastic_ids.contains(job.id) &&
         job.partition != elastic_partition;
}

// When the regular workload plans to take each node: the earliest start_time of a pending
// regular job whose backfill plan names the node.
std::map<std::string, std::int64_t> planned_takeovers(const Snapshot& snapshot,
                                                      const std::set<std::uint32_t>& elastic_ids,
                                                      const std::string& elastic_partition) {
  std::map<std::string, std::int64_t> takeover;
  for (const Job& job : snapshot.jobs) {
    if (!is_regular_pending(job, elastic_ids, elastic_partition) || job.start_time <= 0) continue;
    for (const std::string& node : job.sched_nodes) {
      const auto [it, inserted] = takeover.emplace(node, job.start_time);
      if (!inserted) it->second = std::min(it->second, job.start_time);
    }
  }
  return takeover;
}

// `nodes` without those in `removed`, in their order.
template <typename Removed>
std::vector<std::string> minus(const std::vector<std::string>& nodes, const Removed& removed) {
  std::vector<std::string> left;
  for (const std::string& node : nodes)
    if (std::find(removed.begin(), removed.end(), node) == removed.end()) left.push_back(node);
  return left;
}

std::set<std::uint32_t> ids_of(const std::vector<ElasticJob>& elastic) {
  std::set<std::uint32_t> ids;
  for (const ElasticJob& job : elastic) ids.insert(job.job_id);
  return ids;
}

// The action that takes `lost` from `job`: a shrink when the job keeps its batch host and its
// minimum, else a requeue (Slurm cannot remove the batch host; below its minimum it cannot run).
Action release(const ElasticJob& job, const std::set<std::string>& lost, std::string reason) {
  Action action;
  action.job_id = job.job_id;
  action.reason = std::move(reason);
  action.nodes = minus(job.nodes, lost);
  const bool keeps_batch_host = contains(action.nodes, job.batch_host);
  if (keeps_batch_host && static_cast<int>(action.nodes.size()) >= job.min_nodes) {
    action.kind = ActionKind::shrink;
    action.drain = minus(job.nodes, action.nodes);
  } else {
    action.kind = ActionKind::requeue;
    action.drain = job.nodes;
    action.nodes.clear();
  }
  return action;
}

gaptrain::ElasticJob allocator_job(const ElasticJob& job) {
  gaptrain::ElasticJob e;
  e.id = std::to_string(job.job_id);
  e.min_nodes = job.min_nodes;
  e.max_nodes = job.max_nodes;
  std::vector<ScalingCurve::Point> points;
  for (const auto& [nodes, rate] : job.curve) points.push_back({nodes, rate});
  e.curve = ScalingCurve(std::move(points));
  e.up_cost_s = job.up_cost_s;
  e.down_cost_s = job.down_cost_s;
  return e;
}

}  // namespace

std::string_view to_string(ActionKind kind) {
  switch (kind) {
    case ActionKind::shrink: return "shrink";
    case ActionKind::grow: return "grow";
    case ActionKind::requeue: return "requeue";
    case ActionKind::admit: return "admit";
  }
  return "?";
}

std::vector<std::pair<std::string, std::uint32_t>> nodes_to_reclaim(
    const Snapshot& snapshot, const std::vector<ElasticJob>& elastic,
    const std::string& elastic_partition) {
  const std::set<std::uint32_t> elastic_ids = ids_of(elastic);
  std::map<std::string, const Job*> holder;  // node -> the elastic job (as Slurm sees it)
  for (const ElasticJob& job : elastic) {
    const Job* slurm_job = find_job(snapshot, job.job_id);
    if (slurm_job == nullptr) continue;
    for (const std::string& node : job.nodes) holder[node] = slurm_job;
  }

  std::map<std::string, std::uint32_t> wanted;
  for (const Job& job : snapshot.jobs) {
    if (!is_regular_pending(job, elastic_ids, elastic_partition) || job.start_time <= 0) continue;
    for (const std::string& node : job.sched_nodes) {
      const auto it = holder.find(node);
      if (it == holder.end()) continue;
      // Planned to start no later than the elastic job's end: the lease is what it waits for.
      // (One planned after it waits for something else; taking the node now would waste it.)
      const std::int64_t elastic_end = it->second->end_time;
      if (elastic_end > 0 && job.start_time > elastic_end) continue;
      wanted.emplace(node, job.id);
    }
  }
  return {wanted.begin(), wanted.end()};
}

std::vector<ElasticJob> admission_candidates(const Snapshot& snapshot,
                                             const std::string& elastic_partition) {
  std::vector<ElasticJob> candidates;
  for (const Job& job : snapshot.jobs) {
    if (job.state != JobState::pending || !job.held || job.partition != elastic_partition) continue;
    ElasticJob candidate;
    candidate.job_id = job.id;
    candidate.user = job.user;
    candidate.uid = job.user_id;
    candidate.min_nodes = static_cast<int>(std::max<std::uint32_t>(1, job.min_nodes));
    candidate.max_nodes =
        static_cast<int>(std::max<std::uint32_t>(job.max_nodes, job.min_nodes));
    candidate.max_nodes = std::max(candidate.max_nodes, candidate.min_nodes);
    candidate.curve = assumed_curve(candidate.max_nodes);
    candidates.push_back(std::move(candidate));
  }
  return candidates;
}

Plan plan(const Snapshot& snapshot, const std::vector<Hole>& holes,
          const std::vector<ElasticJob>& running, std::int64_t now,
          const PlannerSettings& settings) {
  Plan result;
  // The managed jobs and, with no nodes yet, the held ones waiting for admission.
  std::vector<ElasticJob> elastic = running;
  for (ElasticJob& candidate : admission_candidates(snapshot, settings.elastic_partition)) {
    elastic.push_back(std::move(candidate));
  }
  if (elastic.empty()) return result;

  // 1. Reclaims: give regular jobs what they wait for, at once.
  std::map<std::uint32_t, std::set<std::string>> lost;  // elastic job -> nodes it must give up
  std::map<std::uint32_t, std::uint32_t> lost_to;       // elastic job -> a regular job waiting
  const auto reclaim = nodes_to_reclaim(snapshot, elastic, settings.elastic_partition);
  std::set<std::string> reclaimed;
  for (const auto& [node, regular_job] : reclaim) reclaimed.insert(node);
  std::vector<ElasticJob> staying;  // the jobs the allocator decides for, with what they keep
  for (const ElasticJob& job : elastic) {
    std::set<std::string> gone;
    std::uint32_t waiting = 0;
    for (const auto& [node, regular_job] : reclaim) {
      if (contains(job.nodes, node)) {
        gone.insert(node);
        waiting = regular_job;
      }
    }
    if (gone.empty()) {
      staying.push_back(job);
      continue;
    }
    Action action =
        release(job, gone, "regular job " + std::to_string(waiting) + " is planned on its nodes");
    action.waiting_job = waiting;
    if (action.kind == ActionKind::shrink) {
      ElasticJob kept = job;
      kept.nodes = action.nodes;
      staying.push_back(std::move(kept));
    }
    result.actions.push_back(std::move(action));
  }
  if (staying.empty()) return result;

  // 2. The allocator over the holes and the nodes the staying jobs hold.
  const auto takeover = planned_takeovers(snapshot, ids_of(elastic), settings.elastic_partition);
  const auto seconds_left = [&](const std::string& node) -> std::optional<double> {
    const auto it = takeover.find(node);
    if (it == takeover.end()) return std::nullopt;
    return static_cast<double>(std::max<std::int64_t>(0, it->second - now));
  };

  AllocationProblem problem;
  problem.horizon_s = settings.horizon_s;
  problem.objective = settings.objective;
  problem.solver = settings.solver;
  for (const Hole& hole : holes) {
    if (reclaimed.contains(hole.node)) continue;
    gaptrain::NodeState node;
    node.name = hole.node;
    if (hole.predicted_end)
      node.hole_end_s = static_cast<double>(std::max<std::int64_t>(0, *hole.predicted_end - now));
    problem.nodes.push_back(std::move(node));
  }
  for (const ElasticJob& job : staying) {
    gaptrain::ElasticJob e = allocator_job(job);
    for (const std::string& name : job.nodes) {
      gaptrain::NodeState node;
      node.name = name;
      node.job = e.id;
      node.hole_end_s = seconds_left(name);
      problem.nodes.push_back(std::move(node));
    }
    if (!job.nodes.empty() && contains(job.nodes, job.batch_host)) e.batch_host = job.batch_host;
    problem.jobs.push_back(std::move(e));
  }
  result.allocation = allocate(problem);
  if (result.allocation->call_status != CallStatus::ok) return result;

  // 3. The difference to what every job holds. The allocator never migrates, so a job only
  // keeps a subset (shrink) or gains idle nodes (grow).
  std::vector<Action> grows;
  for (const ElasticJob& job : staying) {
    const auto it = result.allocation->allocation.find(std::to_string(job.job_id));
    const std::vector<std::string> target =
        it == result.allocation->allocation.end() ? std::vector<std::string>{} : it->second;
    const std::vector<std::string> added = minus(target, job.nodes);
    const std::vector<std::string> removed = minus(job.nodes, target);
    if (job.nodes.empty()) {
      if (!added.empty()) grows.push_back(Action{ActionKind::admit, job.job_id, added, {}, "allocator"});
    } else if (!added.empty()) {
      grows.push_back(Action{ActionKind::grow, job.job_id, added, {}, "allocator"});
    } else if (!removed.empty()) {
      result.actions.push_back(release(job, {removed.begin(), removed.end()}, "allocator"));
    }
  }
  result.actions.insert(result.actions.end(), grows.begin(), grows.end());
  return result;
}

}  // namespace gaptrain::daemon
