#include "core/cycle.hpp"

#include <cmath>
#include <map>
#include <set>
#include <string>
#include <string_view>

#include "core/home.hpp"
#include "core/node_type.hpp"

namespace gaptrain::core {

CycleSettings cycle_settings(const DaemonConfig& config,
                             const std::optional<SlurmBehaviour>& behaviour, Operation operation) {
  CycleSettings settings;
  settings.planner.horizon_s = config.horizon_s;
  settings.planner.elastic_partitions = config.elastic_partitions;
  settings.planner.satellite_qos = config.satellite_qos;
  settings.planner.idle_reserve_nodes = config.idle_reserve_nodes;
  settings.planner.objective = config.objective;
  settings.planner.fair_p = config.fair_p;
  settings.planner.queue = config.queue;
  settings.planner.operation = operation;
  if (behaviour) settings.planner.shrink_own_nodes = behaviour->shrink_own_nodes;
  settings.resize = config.resize;
  settings.lease_s = config.lease_s;
  settings.home_partition = config.home_partition;
  settings.node_types = config.node_types;
  settings.satellite_partition = config.satellite_partition;
  return settings;
}

HoleChanges observe_cluster(Snapshot& snapshot, std::vector<Hole>& holes,
                            const CycleSettings& settings) {
  assign_node_types(snapshot, settings.node_types);
  see_home(snapshot, settings.home_partition);
  std::vector<Hole> found = find_holes(snapshot, holes);
  // Indexed by node, not searched: thousands of holes on each side after a burst of job ends.
  std::map<std::string_view, const Hole*> before;
  for (const Hole& hole : holes) before.emplace(hole.node, &hole);
  std::set<std::string_view> after;
  HoleChanges changes;
  for (const Hole& hole : found) {
    after.insert(hole.node);
    const auto old = before.find(hole.node);
    if (old == before.end()) {
      changes.opened.push_back(hole);
    } else if (old->second->predicted_end != hole.predicted_end) {
      changes.end_changed.push_back(hole);
    }
  }
  for (const Hole& hole : holes) {
    if (!after.contains(hole.node)) changes.closed.push_back(hole);
  }
  holes = std::move(found);
  return changes;
}

ResizerSettings resizer_settings(const DaemonConfig& config) {
  ResizerSettings settings;
  settings.drain_grace_s = config.drain_grace_s;
  settings.reclaim_grace_s = config.reclaim_grace_s;
  settings.lease_s = config.lease_s;
  settings.max_notice_s = config.max_notice_s;
  settings.elastic_partitions = config.elastic_partitions;
  settings.satellite_qos = config.satellite_qos;
  settings.satellite_partition = config.satellite_partition;
  settings.home_partition = config.home_partition;
  settings.satellite_reservation = config.satellite_reservation;
  return settings;
}

CycleOutcome cycle(const Snapshot& snapshot, const std::vector<Hole>& holes, ElasticJobs& elastic,
                   Resizer& resizer, const Now& now, const CycleSettings& settings) {
  const ElasticPartitions& partitions = settings.planner.elastic_partitions;
  resizer.forget_except(elastic, snapshot);
  std::vector<ElasticJob> held;
  for (const auto& [id, job] : elastic.jobs()) held.push_back(job);
  const std::set<std::uint32_t> served = resizer.served(snapshot, now);
  std::map<std::string, std::uint32_t> draining;  // node -> the regular job it goes to, or 0
  for (const auto& [job_id, drain] : resizer.drains()) {
    for (const std::string& node : drain.drain) draining[node] = drain.going_to(node);
  }
  // Over every node the jobs hold, those they are draining included: a node on its way back
  // for the allocator counts for the regular job that waits (hurry() below), instead of another
  // being taken; one on its way to a regular job serves no other.
  // A lease is set in whole minutes: it ends within lease_s and a minute from now.
  const std::int64_t lease_horizon =
      settings.lease_s > 0 ? now.wall + static_cast<std::int64_t>(std::ceil(settings.lease_s)) + 60
                           : 0;
  const Reclaim reclaim = nodes_to_reclaim(snapshot, held, partitions, served, draining,
                                           lease_horizon, settings.planner.satellite_qos);

  std::vector<Hole> growable = holes;
  const std::set<std::string> promised = resizer.promised(snapshot, now);
  std::erase_if(growable, [&](const Hole& hole) { return promised.contains(hole.node); });
  // Equal share splits the nodes it sees, and a node being drained is neither a job's nor a
  // hole until it is let go: re-sharing while drains are in flight moves the split with every
  // drain, and jobs shrink off nodes to grow back onto them a poll later. It re-shares a
  // settled cluster (reclaims still go ahead).
  PlannerSettings planner = settings.planner;
  planner.backfilled.overtook = resizer.overtook();
  for (const auto& [job_id, drain] : resizer.drains()) {
    if (drain.kind == ActionKind::requeue) planner.backfilled.requeuing.insert(job_id);
  }
  if (planner.equal_share && !resizer.drains().empty()) planner.allocate = false;
  const Plan next =
      plan(snapshot, growable, resizer.planning_view(elastic), now.wall, planner, reclaim);

  CycleOutcome outcome;
  outcome.kept_idle = reclaim.kept_idle;
  outcome.allocation = next.allocation;
  outcome.set_aside = next.set_aside;
  outcome.waiting = next.waiting;
  if (!settings.resize) {
    for (const Action& action : next.actions) {
      outcome.notes.push_back(Note{NoteLevel::debug,
                                   "action not applied (resize is off)",
                                   {{"ACTION", to_string(action.kind)},
                                    {"JOB_ID", action.job_id},
                                    {"NODES", join_nodes(action.nodes)},
                                    {"REASON", action.reason}}});
    }
    return outcome;
  }
  std::set<std::string> reclaimed;
  for (const auto& [node, waiting] : reclaim.nodes) reclaimed.insert(node);
  resizer.hurry(reclaim.nodes, now);
  outcome.changed = resizer.release_orphans(snapshot);
  outcome.changed |= resizer.hold_unstarted_admissions(snapshot, now);
  outcome.changed |= resizer.apply(next, snapshot, elastic, now);
  outcome.changed |= resizer.advance(elastic, now);
  const auto takeovers = planned_takeovers(snapshot, held, partitions);
  resizer.keep_leases(snapshot, elastic, reclaimed, now, takeovers);
  // The nodes the reclaim will take when each plan comes due, not those the plans name.
  resizer.give_notices(elastic,
                       reclaim_takeovers(snapshot, held, partitions, served, draining,
                                         settings.planner.satellite_qos),
                       now);
  outcome.notes = resizer.take_notes();
  outcome.resizes = resizer.take_resizes();
  return outcome;
}

}  // namespace gaptrain::core
