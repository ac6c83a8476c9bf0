// What gaptraind does next, decided from its live model (docs/resizing.md): first the nodes a
// regular job is waiting for are taken back from elastic jobs, then the allocator decides how
// the remaining holes and elastic nodes are shared, and the difference to what every job holds
// becomes Slurm actions. Pure: a snapshot and the elastic jobs in, a plan out; executing it
// (Slurm calls, the job's drain handshake) is the daemon's business.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "allocator/allocation.hpp"
#include "core/cluster.hpp"
#include "core/elastic_jobs.hpp"
#include "core/elastic_partitions.hpp"
#include "core/holes.hpp"
#include "core/operation.hpp"
#include "core/queue_policy.hpp"
#include "core/settings.hpp"

namespace gaptrain::core {

struct PlannerSettings {
  double horizon_s = kHorizonS.default_value;
  allocator::Objective objective = allocator::Objective::speedup;
  double fair_p = kFairP.default_value;
  allocator::SolverOptions solver{.time_limit_s = kSolveTimeLimitS};
  // Pending jobs of these partitions wait for the allocator to admit them (ActionKind::admit);
  // each partition is planned on its own (partition_scopes).
  ElasticPartitions elastic_partitions;
  // The QOS satellites run in (gaptraind.json satellite_qos), one the regular QOS preempts: its
  // satellites never delay backfill's plans, so a reclaim takes them only as a plan's start nears
  // (nodes_to_reclaim). "": satellites in their job's QOS.
  std::string satellite_qos;
  // Idle nodes elastic work never starts on, kept for regular jobs still to come: each one a
  // small job submitted then starts on at once, without waiting for a reclaim.
  int idle_reserve_nodes = 0;
  // False under SchedulerParameters=disable_job_shrink (slurm_release.hpp): a job never gives
  // back one of its own nodes but by a requeue; satellites are still given back one by one.
  bool shrink_own_nodes = true;
  // The comparison policies of `gaptrain simulate` (--policy); gaptraind runs the defaults.
  // False: the allocator is not told when holes end (BFTrainer's view: every hole lasts the
  // horizon) and admits a job on any hole, not the longest.
  bool use_hole_ends = true;
  // True: BFTrainer's heuristic baseline shares the nodes equally (allocator/equal_share.hpp)
  // instead of the allocator.
  bool equal_share = false;
  // False: reclaims only, no allocation this time (cycle.hpp: equal share waits for drains).
  bool allocate = true;
  // Which held jobs are admitted, in which order, and the caps on what elastic jobs hold.
  QueuePolicy queue;
  // Jobs admitted past the head of the queue (backfill) and those being requeued: the
  // resizer's record (Resizer::overtook, its drains).
  Backfilled backfilled;
  // Paused or draining (operation.hpp): reclaims only, no admission, no grow; draining also
  // gives back every satellite.
  Operation operation = Operation::running;
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
  // grow, admit: when the regular workload takes the first of `nodes` back (the holes'
  // predicted end, epoch s); 0 when not known. The first time limit must end by then, or
  // Slurm refuses to start elastic work there ahead of the pending job it is planned for.
  std::int64_t hole_end = 0;
  // A reclaim for several waiting jobs at once: the regular job each reclaimed node goes to.
  // Each of them is served by the drain (taking nodes for them again at the next poll, as if
  // only `waiting_job` had been, requeued a job in a burst of 1-node jobs).
  std::map<std::string, std::uint32_t> goes_to = {};
  // admit: the job at the head of the queue this admission goes past (backfill), or 0.
  std::uint32_t overtakes = 0;
};

struct Plan {
  // Reclaims first (a regular job waits on them), then the allocator's shrinks, then its grows
  // (which may use nodes the shrinks free).
  std::vector<Action> actions;
  // The allocator's answer; empty when there was nothing to decide (no elastic job).
  std::optional<allocator::AllocationResult> allocation;
  // Jobs whose own inputs the allocator refuses (a curve, a cost: validate_job), with why. They
  // keep what they hold and are left out of the allocation; the other jobs are still planned.
  std::vector<std::pair<std::uint32_t, std::string>> set_aside;
  // Held jobs the queue policy does not admit yet, with why (queue_policy.hpp).
  std::vector<std::pair<std::uint32_t, std::string>> waiting;
};

// A pending job of the regular workload: not elastic (managed, or pending in an elastic
// partition, which waits for holes and never reclaims).
bool is_regular_pending(const Job& job, const std::set<std::uint32_t>& elastic_ids,
                        const ElasticPartitions& elastic_partitions);

// An idle node kept for a waiting regular job: the job, and the rule that counts it there
// (gaptraind journals both: an idle node nobody grows into says why).
struct KeptIdle {
  std::uint32_t job_id = 0;
  std::string why;
  bool operator==(const KeptIdle&) const = default;
};

// What the regular workload waits for (docs/design.md, "Holes and reclaims").
struct Reclaim {
  // Elastic nodes to give back at once, each with the regular job waiting for it.
  std::vector<std::pair<std::string, std::uint32_t>> nodes;
  // Idle nodes a waiting regular job is counted on: not holes to grow into.
  std::map<std::string, KeptIdle> kept_idle;
};

// The nodes pending regular jobs wait for, visiting them in Slurm's order (priority, then job
// id). A job gets elastic nodes when
//  1. it would start now if the elastic jobs were not there: it waits for nodes (reason
//     Resources, Priority or none yet) and the idle nodes plus the elastic ones of its
//     partition are enough; or
//  2. backfill planned it (sched_nodes) on elastic nodes to start no later than their time
//     limit: the elastic leases are what delay it.
// It needs as many of the nodes it can start on (node_needs.hpp: its partition's, less those it
// excludes, those its constraint rules out, those of a reservation it is not in), not those
// very ones but for the nodes it names (-w): idle nodes count first (kept_idle), then elastic
// ones (satellites, then the jobs' own nodes), a batch host last (a requeue) when nothing else
// can stand in; a batch host it names is taken at once (a requeue). Code: reclaims.cpp. Jobs ahead
// are counted on their nodes; jobs in `served` already have nodes on their way and get only their
// idle ones kept. `draining` are elastic nodes already on their way back, each with the regular job
// it goes to (0: drained for the allocator): those going to a regular job serve no other, and those
// the allocator drains are given first, so a job that waits is counted on them rather than on one
// more node. Not modelled: memory, licences (a job that fits in idle nodes but that backfill plans
// later, on none of the elastic nodes, is left to Slurm), and backfill's rule that a job may not
// delay those ahead (a small job behind a blocked big one gets nodes it may not start on yet: the
// elastic jobs lose them, the regular workload loses nothing). `lease_horizon` (epoch s; 0: none)
// is when the longest lease gaptraind gives now would end: a time limit beyond it (a job Slurm
// started itself, with its own limit, not leased yet) counts as ending there, for gaptraind cuts it
// to a lease this poll. A job that backfill plans at such a limit waits for what the limit was, not
// for the lease: taking nodes for it then requeued an elastic job half an hour early. A satellite
// in `satellite_qos` (one Slurm preempts for regular jobs) never delays a plan: backfill counts
// preemptable jobs' nodes as free (its _bf_reserve_running), so a job planned on one is due only
// once its start is near, whatever the satellite's limit.
Reclaim nodes_to_reclaim(const Snapshot& snapshot, const std::vector<ElasticJob>& elastic,
                         const ElasticPartitions& elastic_partitions,
                         const std::set<std::uint32_t>& served = {},
                         const std::map<std::string, std::uint32_t>& draining = {},
                         std::int64_t lease_horizon = 0, const std::string& satellite_qos = {});

// When the regular workload plans to take each node back: the earliest start_time of a pending
// regular job whose backfill plan (sched_nodes) names it. Leases never run past it.
std::map<std::string, std::int64_t> planned_takeovers(const Snapshot& snapshot,
                                                      const std::vector<ElasticJob>& elastic,
                                                      const ElasticPartitions& elastic_partitions);

// Which elastic nodes backfill's plans will take, and when (their job's start_time): the nodes
// nodes_to_reclaim() would take for each planned job once its start is due, by the same order
// (idle nodes first, then satellites, the jobs' own nodes, a batch host last), across the jobs
// in Slurm's order. Not the nodes the plan names: a planned batch host is swapped for another
// elastic node. What the notices name (notice.hpp); nodes reclaimed now are left out (their
// drain is their notice).
std::map<std::string, std::int64_t> reclaim_takeovers(
    const Snapshot& snapshot, const std::vector<ElasticJob>& elastic,
    const ElasticPartitions& elastic_partitions, const std::set<std::uint32_t>& served = {},
    const std::map<std::string, std::uint32_t>& draining = {},
    const std::string& satellite_qos = {});

// Pending jobs of the elastic partition that wait for gaptrain to start them (parking.hpp:
// parked by a begin time far ahead, as `gaptrain submit` does, or held with --hold), as the
// allocator's new jobs: no nodes, the node range of their -N MIN-MAX, the assumed curve until
// they register their own. A held job whose own begin time (--begin) is still ahead waits for it.
std::vector<ElasticJob> admission_candidates(const Snapshot& snapshot,
                                             const std::string& elastic_partition);

// The `count` holes kept idle for arriving regular jobs (PlannerSettings::idle_reserve_nodes),
// none of them in `excluded`: those whose predicted end comes soonest, the least worth to
// elastic work (an unknown end counts as never), in `holes`' order among equals.
std::set<std::string> reserved_holes(const std::vector<Hole>& holes,
                                     const std::set<std::string>& excluded, int count);

// One elastic partition as the planner sees it: the nodes it plans over (nullopt: every node,
// when the snapshot lists no partitions).
struct PartitionScope {
  std::string partition;
  std::optional<std::set<std::string>> nodes;
};

// Each elastic partition with its nodes, in the order listed; a node in several belongs to the
// first (two allocators must never give the same hole). With no partitions in the snapshot the
// first takes every node and the others none.
std::vector<PartitionScope> partition_scopes(const Snapshot& snapshot,
                                             const ElasticPartitions& partitions);

// The plan for `snapshot` at time `now` (epoch s). `holes` are find_holes(snapshot); `elastic`
// are the managed jobs with their nodes as Slurm reports them (batch host first). The reclaims
// are over every elastic job; then each elastic partition (partition_scopes) is planned on its
// own: its holes, its jobs (by their Slurm partition) and its admissions, under the queue policy
// (caps per partition: a user capped at 4 nodes may hold 4 in each).
Plan plan(const Snapshot& snapshot, const std::vector<Hole>& holes,
          const std::vector<ElasticJob>& elastic, std::int64_t now, const PlannerSettings& settings,
          const std::set<std::uint32_t>& served = {});
// The same with the reclaims computed by the caller (cycle.hpp computes them once, over the
// nodes the jobs hold before their drains, and uses them for the leases too). Reclaimed nodes
// that none of `elastic` holds (on their way back already) need no action here.
Plan plan(const Snapshot& snapshot, const std::vector<Hole>& holes,
          const std::vector<ElasticJob>& elastic, std::int64_t now, const PlannerSettings& settings,
          const Reclaim& reclaim);

}  // namespace gaptrain::core
