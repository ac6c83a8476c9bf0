#include "core/planner.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "allocator/allocator.hpp"
#include "allocator/equal_share.hpp"
#include "core/node_list.hpp"
#include "core/parking.hpp"
#include "core/slurm_node_order.hpp"
#include "gaptrain/bounds.hpp"
#include "gaptrain/input_error.hpp"
#include "gaptrain/node_sizes.hpp"

namespace gaptrain::core {

namespace {

std::map<std::string, std::int64_t> takeovers_by_ids(const Snapshot& snapshot,
                                                     const std::set<std::uint32_t>& elastic_ids,
                                                     const ElasticPartitions& elastic_partitions) {
  std::map<std::string, std::int64_t> takeover;
  for (const Job& job : snapshot.jobs) {
    if (!is_regular_pending(job, elastic_ids, elastic_partitions) || job.start_time <= 0) continue;
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

// True when `lost` holds one of the job's own nodes (not a satellite it grew into).
bool loses_own_node(const ElasticJob& job, const std::set<std::string>& lost) {
  return std::any_of(lost.begin(), lost.end(),
                     [&](const std::string& node) { return !job.satellites.contains(node); });
}

NodeSizes sizes_of(const ElasticJob& job) {
  return NodeSizes{job.given.min_nodes, job.given.max_nodes, job.given.allowed_sizes};
}

// `kept` cut to the largest count the job runs on (it runs only at some: --elastic=2-8:2), the
// nodes beyond going with the others: satellites first, the last grown first, then its own
// nodes, never the batch host. Below its smallest count nothing is cut: that is a requeue.
void keep_an_allowed_count(const ElasticJob& job, std::vector<std::string>& kept) {
  const int count = largest_allowed_at_most(sizes_of(job), static_cast<int>(kept.size()));
  if (count == 0) return;
  auto extra = static_cast<std::ptrdiff_t>(kept.size()) - count;
  for (const bool satellites : {true, false}) {
    for (auto it = kept.end(); extra > 0 && it != kept.begin();) {
      --it;
      if (*it == job.batch_host || job.satellites.contains(*it) != satellites) continue;
      it = kept.erase(it);
      --extra;
    }
  }
}

// The action that takes `lost` from `job`: a shrink when the job keeps its batch host and its
// minimum, else a requeue (Slurm cannot remove the batch host; below its minimum it cannot run).
// A job at home (home.hpp) is never requeued: below its minimum it lets go of every node and
// is paused, its launcher waiting on the home node for the nodes the allocator gives it next.
// A job that runs only at some counts lets go of what is beyond the largest it keeps, at once.
// Without `shrink_own_nodes` (disable_job_shrink) only satellites can go by a shrink.
Action release(const ElasticJob& job, const std::set<std::string>& lost, std::string reason,
               bool shrink_own_nodes) {
  Action action;
  action.job_id = job.job_id;
  action.reason = std::move(reason);
  action.nodes = minus(job.nodes, lost);
  keep_an_allowed_count(job, action.nodes);
  const std::vector<std::string> gone = minus(job.nodes, action.nodes);
  if (job.at_home) {
    if (static_cast<int>(action.nodes.size()) < job.given.min_nodes) action.nodes.clear();
    action.kind = ActionKind::shrink;
    action.drain = minus(job.nodes, action.nodes);
    return action;
  }
  const bool keeps_batch_host = contains(action.nodes, job.batch_host);
  const bool shrinkable =
      shrink_own_nodes || !loses_own_node(job, std::set<std::string>(gone.begin(), gone.end()));
  if (shrinkable && keeps_batch_host &&
      static_cast<int>(action.nodes.size()) >= job.given.min_nodes) {
    action.kind = ActionKind::shrink;
    action.drain = minus(job.nodes, action.nodes);
  } else {
    action.kind = ActionKind::requeue;
    action.drain = job.nodes;
    action.nodes.clear();
  }
  return action;
}

// The job as the allocator sees it; throws InputError (naming the job's field) when the
// allocator would refuse it.
gaptrain::allocator::AllocatableJob allocator_job(const ElasticJob& job) {
  gaptrain::allocator::AllocatableJob e;
  e.id = std::to_string(job.job_id);
  e.min_nodes = job.given.min_nodes;
  e.max_nodes = job.given.max_nodes;  // the allocator clamps it to the nodes there are
  e.allowed_sizes = job.given.allowed_sizes;
  e.mix_types = job.given.mix_types;
  e.curve = job.curve;
  for (const auto& [type, typed] : job.curves) e.curves.emplace(type, typed.curve);
  e.up_cost_s = job.up_cost_s;
  e.down_cost_s = job.down_cost_s;
  // A job with a batch range is valued at its goodput, at the noise scale known now.
  e.batch = job.given.batch;
  if (const std::optional<NoiseScale> phi = noise_scale_of(job)) e.noise_scale = phi->value;
  validate_job(e, "job " + e.id);
  return e;
}

// Why the allocator could not plan a job on the nodes it holds: nodes of two types
// (Slurm started it so: its submission named no one type), or of a type it has no curve for. Set
// aside rather than handed to the allocator, which would refuse the whole problem.
std::optional<std::string> held_types_problem(const gaptrain::allocator::AllocatableJob& job,
                                              const std::vector<std::string>& nodes,
                                              const NodeTypes& types) {
  const auto named = [](const std::string& type) {
    return type.empty() ? std::string("untyped nodes") : "type \"" + type + "\"";
  };
  if (nodes.empty() || job.mix_types) return std::nullopt;  // (a mixing job has one curve)
  const std::string& type = types.of(nodes.front());
  for (const std::string& node : nodes) {
    if (types.of(node) != type) {
      return "holds nodes of two types (" + named(type) + " and " + named(types.of(node)) +
             "): submit it with --constraint=\"[TYPE|TYPE...]\" so that Slurm starts it on one";
    }
  }
  if (curve_on(job, type) == nullptr) return "holds " + named(type) + ", which it has no curve for";
  return std::nullopt;
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

std::map<std::string, std::int64_t> planned_takeovers(const Snapshot& snapshot,
                                                      const std::vector<ElasticJob>& elastic,
                                                      const ElasticPartitions& elastic_partitions) {
  return takeovers_by_ids(snapshot, ids_of(elastic), elastic_partitions);
}

std::vector<ElasticJob> admission_candidates(const Snapshot& snapshot,
                                             const std::string& elastic_partition) {
  std::vector<ElasticJob> candidates;
  for (const Job& job : snapshot.jobs) {
    if (job.partition != elastic_partition || !waits_for_admission(job, snapshot.taken_at))
      continue;
    // A held job's begin time of the user's own is kept; the one Slurm gives a requeued job is
    // not (it resumes from its checkpoint, nothing to wait for: admission starts it now). A
    // parked job's begin time is the parking itself.
    if (job.held && !job.requeued && job.eligible_time > snapshot.taken_at) continue;
    ElasticJob candidate;
    candidate.job_id = job.id;
    candidate.given.user = job.user;
    candidate.uid = job.user_id;
    // Slurm's counts are unsigned (and NO_VAL when unset): a maximum beyond the cluster's node
    // count means all of them. (A minimum beyond it is kept: such a job never starts.)
    const std::uint32_t min_nodes =
        std::clamp<std::uint32_t>(job.min_nodes, 1, static_cast<std::uint32_t>(bounds::kMaxNodes));
    const std::uint32_t cluster_nodes =
        std::max(min_nodes, static_cast<std::uint32_t>(snapshot.nodes.size()));
    candidate.given.min_nodes = static_cast<int>(min_nodes);
    candidate.given.max_nodes =
        static_cast<int>(std::clamp(job.max_nodes, min_nodes, cluster_nodes));
    candidate.curve = assumed_curve(candidate.given.max_nodes);
    // A job that asks for node types (--constraint="[a100|v100]") is admitted on one of them;
    // its curve per type comes with its registration.
    for (const std::string& type : types_in_constraint(job.features, snapshot)) {
      candidate.curves[type].curve = candidate.curve;
    }
    candidates.push_back(std::move(candidate));
  }
  return candidates;
}

std::set<std::string> reserved_holes(const std::vector<Hole>& holes,
                                     const std::set<std::string>& excluded, int count) {
  std::vector<const Hole*> open;
  for (const Hole& hole : holes) {
    if (!excluded.contains(hole.node)) open.push_back(&hole);
  }
  constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();
  std::stable_sort(open.begin(), open.end(), [&](const Hole* a, const Hole* b) {
    return a->predicted_end.value_or(kNever) < b->predicted_end.value_or(kNever);
  });
  std::set<std::string> reserved;
  for (const Hole* hole : open) {
    if (std::cmp_greater_equal(reserved.size(), count)) break;
    reserved.insert(hole->node);
  }
  return reserved;
}

Plan plan(const Snapshot& snapshot, const std::vector<Hole>& holes,
          const std::vector<ElasticJob>& running, std::int64_t now, const PlannerSettings& settings,
          const std::set<std::uint32_t>& served) {
  return plan(snapshot, holes, running, now, settings,
              nodes_to_reclaim(snapshot, running, settings.elastic_partitions, served, {}, 0,
                               settings.satellite_qos));
}

std::vector<PartitionScope> partition_scopes(const Snapshot& snapshot,
                                             const ElasticPartitions& partitions) {
  std::vector<PartitionScope> scopes;
  std::set<std::string> claimed;
  for (const std::string& name : partitions.names()) {
    PartitionScope scope{name, partition_nodes(snapshot, name)};
    if (!scope.nodes) {
      // No partitions listed: the first plans over every node.
      if (!scopes.empty()) scope.nodes.emplace();
    } else {
      std::erase_if(*scope.nodes, [&](const std::string& node) { return claimed.contains(node); });
      claimed.insert(scope.nodes->begin(), scope.nodes->end());
    }
    scopes.push_back(std::move(scope));
  }
  return scopes;
}

namespace {

// plan() for one elastic partition: `holes` and `running` are those of `scope`.
Plan plan_partition(const Snapshot& snapshot, const std::vector<Hole>& holes,
                    const std::vector<ElasticJob>& running, std::int64_t now,
                    const PlannerSettings& settings, const Reclaim& reclaim,
                    const PartitionScope& scope) {
  Plan result;
  std::set<std::string> reclaimed;  // and the nodes kept idle: not holes to grow into either
  for (const auto& [node, kept] : reclaim.kept_idle) reclaimed.insert(node);
  for (const auto& [node, regular_job] : reclaim.nodes) reclaimed.insert(node);
  const std::set<std::string> reserved =
      reserved_holes(holes, reclaimed, settings.idle_reserve_nodes);
  const std::size_t partition_size = scope.nodes ? scope.nodes->size() : snapshot.nodes.size();

  // The managed jobs and, with no nodes yet, the held ones the queue policy lets in, in its
  // order: they fit in the holes and what running jobs hold beyond their minimums.
  std::size_t free_nodes = 0;
  for (const Hole& hole : holes)
    if (!reclaimed.contains(hole.node) && !reserved.contains(hole.node)) ++free_nodes;
  for (const ElasticJob& job : running) {
    const std::size_t kept = minus(job.nodes, reclaimed).size();
    free_nodes += kept - std::min(kept, static_cast<std::size_t>(std::max(1, job.given.min_nodes)));
  }
  std::vector<ElasticJob> candidates = admission_candidates(snapshot, scope.partition);
  if (settings.operation != Operation::running) {
    for (const ElasticJob& candidate : candidates) {
      result.waiting.emplace_back(candidate.job_id, "gaptraind is " +
                                                        std::string(to_string(settings.operation)) +
                                                        " (an admin runs `gaptrain resume`)");
    }
    candidates.clear();
  }
  Admission admission =
      order_admissions(snapshot, running, std::move(candidates), free_nodes, partition_size,
                       scope.partition, settings.queue, settings.backfilled);
  result.waiting.insert(result.waiting.end(), admission.waiting.begin(), admission.waiting.end());
  std::vector<ElasticJob> elastic;
  for (const ElasticJob& job : running) {
    if (std::ranges::find(admission.give_way, job.job_id) == admission.give_way.end()) {
      elastic.push_back(job);
      continue;
    }
    // It went past the head of the queue, which could start in its place now: back to the
    // queue, where it resumes (from its checkpoint) behind the head.
    const std::set<std::string> all(job.nodes.begin(), job.nodes.end());
    result.actions.push_back(release(
        job, all,
        "job " + std::to_string(admission.head) + ", ahead of it in the queue, starts in its place",
        settings.shrink_own_nodes));
  }
  for (ElasticJob& candidate : admission.admissible) elastic.push_back(std::move(candidate));
  if (elastic.empty()) return result;

  // 1. Reclaims: give regular jobs what they wait for, at once.
  std::vector<ElasticJob> staying;  // the jobs the allocator decides for, with what they keep
  for (const ElasticJob& job : elastic) {
    std::set<std::string> gone;
    std::map<std::string, std::uint32_t> goes_to;
    std::uint32_t waiting = 0;
    for (const auto& [node, regular_job] : reclaim.nodes) {
      if (contains(job.nodes, node)) {
        gone.insert(node);
        goes_to[node] = regular_job;
        waiting = regular_job;
      }
    }
    if (gone.empty()) {
      staying.push_back(job);
      continue;
    }
    Action action =
        release(job, gone, "regular job " + std::to_string(waiting) + " waits for its nodes",
                settings.shrink_own_nodes);
    action.waiting_job = waiting;
    action.goes_to = std::move(goes_to);
    if (action.kind == ActionKind::shrink) {
      ElasticJob kept = job;
      kept.nodes = action.nodes;
      staying.push_back(std::move(kept));
    }
    result.actions.push_back(std::move(action));
  }
  if (settings.operation == Operation::draining) {
    for (const ElasticJob& job : staying) {
      std::set<std::string> satellites;
      for (const auto& [node, satellite] : job.satellites)
        if (contains(job.nodes, node)) satellites.insert(node);
      if (satellites.empty()) continue;
      result.actions.push_back(
          release(job, satellites, "gaptraind drains (gaptrain drain)", settings.shrink_own_nodes));
    }
  }
  if (staying.empty() || !settings.allocate || settings.operation != Operation::running) {
    return result;
  }

  // 2. The allocator over the holes and the nodes the staying jobs hold.
  const auto takeover = takeovers_by_ids(snapshot, ids_of(elastic), settings.elastic_partitions);
  const auto seconds_left = [&](const std::string& node) -> std::optional<double> {
    const auto it = takeover.find(node);
    if (it == takeover.end()) return std::nullopt;
    return static_cast<double>(std::max<std::int64_t>(0, it->second - now));
  };

  allocator::AllocationProblem problem;
  problem.horizon_s = settings.horizon_s;
  problem.objective = settings.objective;
  problem.fair_p = settings.fair_p;
  problem.solver = settings.solver;
  const NodeTypes types(snapshot);
  // The allocator takes the first free nodes of a class first and a job keeps its first own
  // nodes: both in the order Slurm offers regular jobs nodes last (slurm_node_order.hpp).
  const SlurmNodeOrder slurm_order(snapshot);
  std::map<std::string, const Hole*> free_holes;
  for (const Hole& hole : holes) {
    if (!reclaimed.contains(hole.node) && !reserved.contains(hole.node))
      free_holes.emplace(hole.node, &hole);
  }
  std::vector<std::string> free_names;
  for (const auto& [name, hole] : free_holes) free_names.push_back(name);
  for (const std::string& name : slurm_order.last_offered_first(std::move(free_names))) {
    const Hole& hole = *free_holes.at(name);
    gaptrain::allocator::AllocatableNode node;
    node.name = hole.node;
    node.type = types.of(hole.node);
    if (hole.predicted_end && settings.use_hole_ends)
      node.hole_end_s = static_cast<double>(std::max<std::int64_t>(0, *hole.predicted_end - now));
    problem.nodes.push_back(std::move(node));
  }
  // One job's bad input (a learned curve, a restored cost) must not stop the planning of all:
  // it is set aside, keeping its nodes out of the problem, and everyone else is planned.
  std::vector<ElasticJob> planned;
  const JobIndex jobs(snapshot);
  for (ElasticJob& job : staying) {
    std::optional<gaptrain::allocator::AllocatableJob> e;
    try {
      e = allocator_job(job);
    } catch (const InputError& error) {
      result.set_aside.emplace_back(job.job_id, error.what());
      continue;
    }
    if (auto mixed = held_types_problem(*e, job.nodes, types)) {
      result.set_aside.emplace_back(job.job_id, *mixed);
      continue;
    }
    if (const Job* slurm_job = jobs.find(job.job_id); slurm_job != nullptr) {
      e->weight = settings.queue.weight_of(slurm_job->account);
    }
    for (const std::string& name : slurm_order.last_offered_first(job.nodes)) {
      gaptrain::allocator::AllocatableNode node;
      node.name = name;
      node.type = types.of(name);
      node.job = e->id;
      if (settings.use_hole_ends) node.hole_end_s = seconds_left(name);
      problem.nodes.push_back(std::move(node));
    }
    // A job at home is kept on its first node as any job on its batch host (anchor_of): only a
    // regular job (a reclaim, Slurm's preemption) pauses it.
    if (const std::string anchor = anchor_of(job); !anchor.empty() && contains(job.nodes, anchor))
      e->batch_host = anchor;
    problem.jobs.push_back(std::move(*e));
    planned.push_back(std::move(job));
  }
  staying = std::move(planned);
  try {
    result.allocation =
        settings.equal_share ? allocator::share_equally(problem) : allocator::allocate(problem);
  } catch (const InputError& error) {  // the jobs were checked: a setting, never a crash
    result.allocation = allocator::AllocationResult{};
    result.allocation->message = error.what();
  }
  if (result.allocation->call_status != allocator::CallStatus::ok) return result;

  // 3. The difference to what every job holds. The allocator never migrates, so a job only
  // keeps a subset (shrink) or gains idle nodes (grow).
  std::map<std::string, std::int64_t> hole_ends;
  for (const Hole& hole : holes)
    if (hole.predicted_end) hole_ends[hole.node] = *hole.predicted_end;
  constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();
  const auto end_or_never = [&](const std::string& node) {
    const auto found = hole_ends.find(node);
    return found == hole_ends.end() ? kNever : found->second;
  };
  const auto first_end = [&](const std::vector<std::string>& nodes) {  // 0: none known
    std::int64_t end = kNever;
    for (const std::string& node : nodes) end = std::min(end, end_or_never(node));
    return end == kNever ? 0 : end;
  };
  const auto target_of = [&](const ElasticJob& job) {
    const auto it = result.allocation->allocation.find(std::to_string(job.job_id));
    return it == result.allocation->allocation.end() ? std::vector<std::string>{} : it->second;
  };
  // Without shrink_own_nodes the allocator's choice never costs a requeue: a job keeps the
  // own nodes the allocator took from it, and nobody grows into them.
  std::set<std::string> pinned;
  if (!settings.shrink_own_nodes) {
    for (const ElasticJob& job : staying) {
      for (const std::string& node : minus(job.nodes, target_of(job))) {
        if (!job.satellites.contains(node)) pinned.insert(node);
      }
    }
  }
  std::vector<Action> grows;
  for (const ElasticJob& job : staying) {
    const std::vector<std::string> target = target_of(job);
    const std::vector<std::string> added = minus(minus(target, job.nodes), pinned);
    const std::vector<std::string> removed = minus(minus(job.nodes, target), pinned);
    // A job at home with no node is paused, not pending: it grows (satellites) to resume.
    if (!added.empty() && job.nodes.empty() && !job.at_home) {
      // Admitted on as few nodes as it runs on (its minimum: below it the job cannot start),
      // the batch host first, on the longest of the holes; the allocator grows it into the
      // others as satellites once it runs. A job's own nodes are never shrunk below them, only
      // satellites cancelled: shrinking an exclusive allocation leaks the node's reservation
      // in Slurm 22.05 (docs/slurm-notes.md).
      std::vector<std::string> start = added;
      if (settings.use_hole_ends) {
        std::stable_sort(start.begin(), start.end(),
                         [&](const std::string& a, const std::string& b) {
                           return end_or_never(a) > end_or_never(b);
                         });
      }
      start.resize(
          std::min(start.size(), static_cast<std::size_t>(std::max(1, job.given.min_nodes))));
      Action admit{ActionKind::admit, job.job_id, start, {}, "allocator", 0, first_end(start)};
      if (const auto head = admission.overtaking.find(job.job_id);
          head != admission.overtaking.end()) {
        admit.overtakes = head->second;
      }
      grows.push_back(std::move(admit));
    } else if (!added.empty()) {
      grows.push_back(
          Action{ActionKind::grow, job.job_id, added, {}, "allocator", 0, first_end(added)});
    } else if (!removed.empty()) {
      result.actions.push_back(
          release(job, {removed.begin(), removed.end()}, "allocator", settings.shrink_own_nodes));
    }
  }
  // The node caps, over what the jobs keep, in the jobs' order (running, then admissions in
  // the queue's order): a grow gets what its user's, account's and the partition's headroom
  // leave; an admission that would fall below its minimum waits.
  NodeCaps caps(snapshot, staying, partition_size, settings.queue);
  for (Action& grow : grows) {
    std::size_t allowed = caps.allowed(grow.job_id, grow.nodes.size());
    // Capped short of the allocator's count: to the largest count the job runs on. (The job is
    // looked up only then: a search of every job for each grow is the poll's cost at scale.)
    const auto job =
        allowed < grow.nodes.size()
            ? std::find_if(staying.begin(), staying.end(),
                           [&](const ElasticJob& j) { return j.job_id == grow.job_id; })
            : staying.end();
    if (job != staying.end()) {
      const int held = static_cast<int>(job->nodes.size());
      const int total = largest_allowed_at_most(sizes_of(*job), held + static_cast<int>(allowed));
      allowed = total > held ? static_cast<std::size_t>(total - held) : 0;
    }
    if (allowed == 0 || (grow.kind == ActionKind::admit && allowed < grow.nodes.size())) continue;
    grow.nodes.resize(allowed);
    caps.grant(grow.job_id, grow.nodes.size());
    result.actions.push_back(std::move(grow));
  }
  return result;
}

// The partitions' plans as one: their actions in order (each partition's reclaims, shrinks and
// grows; they touch disjoint nodes and jobs), and one allocation over all of them.
void add_partition_plan(Plan& whole, Plan part) {
  for (Action& action : part.actions) whole.actions.push_back(std::move(action));
  for (auto& entry : part.set_aside) whole.set_aside.push_back(std::move(entry));
  for (auto& entry : part.waiting) whole.waiting.push_back(std::move(entry));
  if (!part.allocation) return;
  if (!whole.allocation) {
    whole.allocation = std::move(part.allocation);
    return;
  }
  allocator::AllocationResult& sum = *whole.allocation;
  const allocator::AllocationResult& more = *part.allocation;
  if (more.call_status != allocator::CallStatus::ok) {  // one partition's failure is the call's
    sum.call_status = more.call_status;
    sum.model_status = more.model_status;
    sum.message += (sum.message.empty() ? "" : "; ") + more.message;
  }
  sum.objective += more.objective;
  sum.best_bound += more.best_bound;
  sum.allocation.insert(more.allocation.begin(), more.allocation.end());
  sum.solve_ms += more.solve_ms;
  sum.stats.columns += more.stats.columns;
  sum.stats.rows += more.stats.rows;
  sum.stats.integer_columns += more.stats.integer_columns;
  sum.stats.core_jobs += more.stats.core_jobs;
  sum.stats.hole_classes += more.stats.hole_classes;
}

}  // namespace

Plan plan(const Snapshot& snapshot, const std::vector<Hole>& holes,
          const std::vector<ElasticJob>& running, std::int64_t now, const PlannerSettings& settings,
          const Reclaim& reclaim) {
  const std::vector<PartitionScope> scopes =
      partition_scopes(snapshot, settings.elastic_partitions);
  const JobIndex jobs(snapshot);
  // A managed job is in its Slurm partition's scope; one the snapshot lacks in the first.
  const auto scope_of = [&](const ElasticJob& job) {
    const Job* slurm_job = jobs.find(job.job_id);
    for (std::size_t i = 0; i < scopes.size(); ++i) {
      if (slurm_job != nullptr && slurm_job->partition == scopes[i].partition) return i;
    }
    return std::size_t{0};
  };
  Plan whole;
  for (std::size_t i = 0; i < scopes.size(); ++i) {
    const PartitionScope& scope = scopes[i];
    std::vector<Hole> scope_holes;
    for (const Hole& hole : holes) {
      if (!scope.nodes || scope.nodes->contains(hole.node)) scope_holes.push_back(hole);
    }
    std::vector<ElasticJob> scope_jobs;
    for (const ElasticJob& job : running) {
      if (scope_of(job) == i) scope_jobs.push_back(job);
    }
    add_partition_plan(
        whole, plan_partition(snapshot, scope_holes, scope_jobs, now, settings, reclaim, scope));
  }
  return whole;
}

}  // namespace gaptrain::core
