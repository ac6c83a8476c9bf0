#include "planner.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "allocator/allocator.hpp"

namespace gaptrain::daemon {

namespace {

// Backfill plans in its own resolution and leases are whole minutes: a job planned to start
// within this long after an elastic lease ends is waiting for that lease.
constexpr std::int64_t kLeaseSlackS = 60;

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
    const std::string& elastic_partition, const std::set<std::uint32_t>& served) {
  const std::set<std::uint32_t> elastic_ids = ids_of(elastic);
  struct Holder {
    const ElasticJob* job;
    std::int64_t end;  // the elastic job's time limit as Slurm sees it; 0 unknown
  };
  std::map<std::string, Holder> holder;  // node -> the elastic job holding it
  for (const ElasticJob& job : elastic) {
    const Job* slurm_job = find_job(snapshot, job.job_id);
    if (slurm_job == nullptr) continue;
    for (const std::string& node : job.nodes) {
      // A satellite's node is held until the satellite's own time limit.
      const auto satellite = job.satellites.find(node);
      const Job* allocation =
          satellite == job.satellites.end() ? slurm_job : find_job(snapshot, satellite->second);
      holder[node] = {&job, allocation != nullptr ? allocation->end_time : slurm_job->end_time};
    }
  }
  const auto is_batch_host = [&](const std::string& node) {
    return holder.at(node).job->batch_host == node;
  };
  // Every elastic node that may stand in for a planned one: satellites first (giving one back
  // is an ordinary job end), then the jobs' own nodes, never a batch host.
  std::vector<std::string> stand_ins;
  for (const bool satellites : {true, false}) {
    for (const ElasticJob& job : elastic) {
      for (const std::string& node : job.nodes) {
        if (holder.contains(node) && node != job.batch_host &&
            job.satellites.contains(node) == satellites) {
          stand_ins.push_back(node);
        }
      }
    }
  }

  std::vector<const Job*> waiting;
  for (const Job& job : snapshot.jobs) {
    if (is_regular_pending(job, elastic_ids, elastic_partition) && job.start_time > 0) {
      waiting.push_back(&job);
    }
  }
  std::stable_sort(waiting.begin(), waiting.end(),
                   [](const Job* a, const Job* b) { return a->start_time < b->start_time; });

  // Idle nodes nobody holds: a waiting job takes those before any elastic node.
  std::size_t idle_left = 0;
  for (const Node& node : snapshot.nodes) {
    if ((node.state == NodeState::idle || node.state == NodeState::planned) &&
        !holder.contains(node.name)) {
      ++idle_left;
    }
  }
  std::vector<std::pair<std::string, std::uint32_t>> reclaim;
  std::set<std::string> taken;
  const auto take = [&](const std::string& node, std::uint32_t job_id) {
    taken.insert(node);
    reclaim.emplace_back(node, job_id);
  };
  for (const Job* job : waiting) {
    if (served.contains(job->id)) continue;  // nodes are on their way to it already
    // The elastic nodes backfill planned it on, when their leases are what it waits for: it
    // starts no later than the last of them ends. (A job planned after that waits for something
    // else; taking nodes now would waste them.)
    std::vector<std::string> planned;
    std::int64_t last_end = 0;
    bool unknown_end = false;
    for (const std::string& node : job->sched_nodes) {
      const auto it = holder.find(node);
      if (it == holder.end() || taken.contains(node)) continue;
      planned.push_back(node);
      last_end = std::max(last_end, it->second.end);
      unknown_end = unknown_end || it->second.end <= 0;
    }
    if (planned.empty() || (!unknown_end && job->start_time > last_end + kLeaseSlackS)) continue;
    std::stable_partition(planned.begin(), planned.end(),
                          [&](const std::string& node) { return !is_batch_host(node); });
    // The job needs that many nodes, not those: Slurm starts it on whichever are idle. Idle
    // nodes serve first; of the elastic ones, a planned batch host is swapped for another
    // elastic node, to shrink rather than requeue.
    const std::size_t from_idle = std::min(idle_left, job->sched_nodes.size());
    idle_left -= from_idle;
    std::size_t wanted = std::min(planned.size(), job->sched_nodes.size() - from_idle);
    std::size_t deficit = 0;
    for (const std::string& node : planned) {
      if (wanted == 0) break;
      if (is_batch_host(node)) {
        ++deficit;
      } else {
        take(node, job->id);
      }
      --wanted;
    }
    for (const std::string& node : stand_ins) {
      if (deficit == 0) break;
      if (taken.contains(node)) continue;
      take(node, job->id);
      --deficit;
    }
    for (const std::string& node : planned) {  // no stand-in left: the job is requeued
      if (deficit == 0) break;
      if (is_batch_host(node) && !taken.contains(node)) {
        take(node, job->id);
        --deficit;
      }
    }
  }
  return reclaim;
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
    candidate.max_nodes = static_cast<int>(std::max<std::uint32_t>(job.max_nodes, job.min_nodes));
    candidate.max_nodes = std::max(candidate.max_nodes, candidate.min_nodes);
    candidate.curve = assumed_curve(candidate.max_nodes);
    candidates.push_back(std::move(candidate));
  }
  return candidates;
}

Plan plan(const Snapshot& snapshot, const std::vector<Hole>& holes,
          const std::vector<ElasticJob>& running, std::int64_t now, const PlannerSettings& settings,
          const std::set<std::uint32_t>& served) {
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
  const auto reclaim = nodes_to_reclaim(snapshot, elastic, settings.elastic_partition, served);
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
      if (!added.empty())
        grows.push_back(Action{ActionKind::admit, job.job_id, added, {}, "allocator"});
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
