// What gaptraind does next, decided from its live model (DESIGN.md §3, §4): first the nodes a
// regular job is waiting for are taken back from elastic jobs, then the allocator decides how
// the remaining holes and elastic nodes are shared, and the difference to what every job holds
// becomes Slurm actions. Pure: a snapshot and the elastic jobs in, a plan out; executing it
// (Slurm calls, the job's drain handshake) is the daemon's business.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cluster.hpp"
#include "elastic_jobs.hpp"
#include "gaptrain/allocation.hpp"
#include "holes.hpp"

namespace gaptrain::daemon {

struct PlannerSettings {
  double horizon_s = 120.0;  // the simulator's sweep on KTH-SP2 found 120 s best
  Objective objective = Objective::speedup;
  SolverOptions solver{.time_limit_s = 1.0};
  // Held pending jobs of this partition are admitted by the allocator (ActionKind::admit).
  std::string elastic_partition = "elastic";
};

enum class ActionKind {
  shrink,   // keep `nodes` (a subset with the batch host); `drain` the rest first
  grow,     // add `nodes` (idle now) to the job
  requeue,  // the job cannot keep its batch host or its minimum: back to the queue, it resumes
            // from its checkpoint; `drain` is everything it holds
  admit,    // a pending elastic job starts on `nodes` (idle now)
};

std::string_view to_string(ActionKind kind);

struct Action {
  ActionKind kind = ActionKind::shrink;
  std::uint32_t job_id = 0;
  std::vector<std::string> nodes;  // shrink: the nodes kept; grow: the nodes added
  std::vector<std::string> drain;  // shrink, requeue: the nodes the job lets go
  // Why, for the journal: "regular job 42 is planned on n3" or "allocator".
  std::string reason;
  std::uint32_t waiting_job = 0;  // a reclaim: the regular job waiting for `drain`
};

struct Plan {
  // Reclaims first (a regular job waits on them), then the allocator's shrinks, then its grows
  // (which may use nodes the shrinks free).
  std::vector<Action> actions;
  // The allocator's answer; empty when there was nothing to decide (no elastic job).
  std::optional<AllocationResult> allocation;
};

// Nodes held by elastic jobs that a pending regular job is waiting for: backfill planned the job
// on them (sched_nodes) to start no later than the elastic job's time limit, i.e. the elastic
// job's lease is what delays it. The job needs as many nodes, not those very ones, so a planned
// batch host is swapped for another elastic node (a satellite first) when there is one: the
// job shrinks instead of being requeued. Jobs in `served` already have nodes on their way
// (drains in flight, nodes just given back) and get no more. Pairs of (node, waiting job id).
std::vector<std::pair<std::string, std::uint32_t>> nodes_to_reclaim(
    const Snapshot& snapshot, const std::vector<ElasticJob>& elastic,
    const std::string& elastic_partition, const std::set<std::uint32_t>& served = {});

// Pending jobs of the elastic partition that wait for gaptrain to start them (held: submitted
// with --hold), as the allocator's new jobs: no nodes, the node range of their -N MIN-MAX, the
// assumed curve until they register their own.
std::vector<ElasticJob> admission_candidates(const Snapshot& snapshot,
                                             const std::string& elastic_partition);

// The plan for `snapshot` at time `now` (epoch s). `holes` are find_holes(snapshot); `elastic`
// are the managed jobs with their nodes as Slurm reports them (batch host first).
Plan plan(const Snapshot& snapshot, const std::vector<Hole>& holes,
          const std::vector<ElasticJob>& elastic, std::int64_t now, const PlannerSettings& settings,
          const std::set<std::uint32_t>& served = {});

}  // namespace gaptrain::daemon
