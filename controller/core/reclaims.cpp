// The reclaims (planner.hpp, nodes_to_reclaim): which elastic nodes the pending regular jobs
// wait for, in Slurm's order, each job served by the nodes it can start on (node_needs.hpp).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/node_needs.hpp"
#include "core/planner.hpp"
#include "core/slurm_node_order.hpp"

namespace gaptrain::core {

bool is_regular_pending(const Job& job, const std::set<std::uint32_t>& elastic_ids,
                        const ElasticPartitions& elastic_partitions) {
  return job.state == JobState::pending && !elastic_ids.contains(job.id) &&
         !elastic_partitions.contains(job.partition);
}

namespace {

// Backfill plans in its own resolution and leases are whole minutes: a job planned to start
// within this long after an elastic lease ends is waiting for that lease.
constexpr std::int64_t kLeaseSlackS = 60;

// Backfill runs every few seconds: a job it plans to start within this long starts "now".
constexpr std::int64_t kStartSlackS = 10;

// A pending job that free nodes would start (as opposed to one held back by a dependency, a
// begin time, a limit...).
bool waits_for_nodes(const Job& job) {
  return job.reason == PendingReason::none || job.reason == PendingReason::priority ||
         job.reason == PendingReason::resources;
}

// nodes_to_reclaim(), the one place the reclaim order lives. `ahead`: every backfill plan on
// elastic nodes counts as due, however far its start (the notice asks which nodes the reclaim
// will take when it comes); each node a plan takes is then in `planned_at`, at its job's start.
Reclaim choose_reclaims(const Snapshot& snapshot, const std::vector<ElasticJob>& elastic,
                        const ElasticPartitions& elastic_partitions,
                        const std::set<std::uint32_t>& served,
                        const std::map<std::string, std::uint32_t>& draining,
                        std::int64_t lease_horizon, const std::string& satellite_qos, bool ahead,
                        std::map<std::string, std::int64_t>& planned_at) {
  std::set<std::uint32_t> elastic_ids;
  for (const ElasticJob& job : elastic) elastic_ids.insert(job.job_id);
  struct Holder {
    const ElasticJob* job;
    std::int64_t end;  // the elastic job's time limit as Slurm sees it; 0 unknown
    bool preemptable;  // a satellite in satellite_qos: Slurm preempts it for a regular job
  };
  const JobIndex jobs(snapshot);  // a job grown into hundreds of holes has as many satellites
  std::map<std::string, Holder> holder;  // node -> the elastic job holding it
  for (const ElasticJob& job : elastic) {
    const Job* slurm_job = jobs.find(job.job_id);
    if (slurm_job == nullptr) continue;
    for (const std::string& node : job.nodes) {
      // A satellite's node is held until the satellite's own time limit.
      const auto satellite = job.satellites.find(node);
      const Job* allocation =
          satellite == job.satellites.end() ? slurm_job : jobs.find(satellite->second);
      std::int64_t end = allocation != nullptr ? allocation->end_time : slurm_job->end_time;
      if (lease_horizon > 0 && end > lease_horizon) end = lease_horizon;
      const bool preemptable = satellite != job.satellites.end() && allocation != nullptr &&
                               !satellite_qos.empty() && allocation->qos == satellite_qos;
      holder[node] = {&job, end, preemptable};
    }
  }
  // A job at home has none: every node of it is a satellite (home.hpp). Giving its first node
  // last, as a batch host, paused jobs half as often again in the replay (10 days of KTH: 6,514
  // pauses against 4,347) for no more samples.
  const auto is_batch_host = [&](const std::string& node) {
    return holder.at(node).job->batch_host == node;
  };
  // The elastic nodes in the order they are given up: those the allocator drains already
  // first (they are leaving anyway), then satellites (giving one back is an ordinary job end),
  // then the jobs' own nodes, batch hosts last (that is a requeue). Within each, in the order
  // Slurm offers nodes (slurm_node_order.hpp): the regular job gets the nodes it would have got
  // without elastic jobs.
  const auto giving_rank = [&](const ElasticJob& job, const std::string& node) {
    if (draining.contains(node)) return 0;
    if (node == job.batch_host) return 3;
    return job.satellites.contains(node) ? 1 : 2;
  };
  const SlurmNodeOrder slurm_order(snapshot);
  std::vector<std::string> giving_order;
  for (const int rank : {0, 1, 2, 3}) {
    std::vector<std::string> of_rank;
    for (const ElasticJob& job : elastic) {
      for (const std::string& node : job.nodes) {
        if (holder.contains(node) && giving_rank(job, node) == rank) of_rank.push_back(node);
      }
    }
    for (std::string& node : slurm_order.first_offered_first(std::move(of_rank)))
      giving_order.push_back(std::move(node));
  }
  std::vector<std::string> idle;  // idle nodes nobody holds, in Slurm's order
  for (const Node& node : snapshot.nodes) {
    if ((node.state == NodeState::idle || node.state == NodeState::planned) &&
        !holder.contains(node.name)) {
      idle.push_back(node.name);
    }
  }

  // The regular jobs that may be waiting for elastic nodes, in Slurm's order (priority, then
  // submission): those waiting for nodes at all, and those backfill planned.
  std::vector<const Job*> waiting;
  for (const Job& job : snapshot.jobs) {
    if (!is_regular_pending(job, elastic_ids, elastic_partitions) || job.held) continue;
    if (waits_for_nodes(job) || (job.start_time > 0 && !job.sched_nodes.empty())) {
      waiting.push_back(&job);
    }
  }
  std::stable_sort(waiting.begin(), waiting.end(), [](const Job* a, const Job* b) {
    return a->priority != b->priority ? a->priority > b->priority : a->id < b->id;
  });

  Reclaim result;
  std::set<std::string> idle_counted;  // idle nodes some waiting job is counted on
  std::set<std::string> taken;         // elastic nodes reclaimed, or going to a regular job
  std::set<std::string> blocked;       // partitions where a waiting job would not start now
  std::set<std::string> withheld;      // nodes a job ahead, pinned to them, waits for
  // Per partition, the jobs that block it: backfill starts a job behind them only where it
  // delays none of their planned starts.
  std::map<std::string, std::vector<const Job*>> blockers;
  for (const auto& [node, regular_job] : draining) {
    if (regular_job != 0) taken.insert(node);
  }
  const auto take = [&](const std::string& node, std::uint32_t job_id) {
    taken.insert(node);
    result.nodes.emplace_back(node, job_id);
  };
  const auto keep_idle = [&](const std::vector<std::string>& nodes, const Job& job,
                             const char* why) {
    for (const std::string& node : nodes) {
      idle_counted.insert(node);
      result.kept_idle.try_emplace(node, KeptIdle{job.id, why});
    }
  };
  // Where each waiting job may start (node_needs.hpp), worked out once for the jobs that ask the
  // same: on a 10,000-node machine that is 10,000 inserts for each of hundreds of jobs, at every
  // poll.
  NodeNeeds needs(snapshot);
  const std::set<std::string> idle_nodes(idle.begin(), idle.end());
  for (const Job* job : waiting) {
    const NodeNeed need = needs.of(*job);
    // Idle nodes serve first: Slurm starts a job on whichever nodes are free, of those it may
    // start on. The nodes it names (-w) are those very nodes: no other stands in for one.
    std::vector<std::string> from_idle;
    std::vector<std::string> missing;  // named nodes not idle: an elastic job's, or busy
    for (const std::string& node : need.required) {
      if (idle_nodes.contains(node) && !idle_counted.contains(node)) {
        from_idle.push_back(node);
      } else {
        missing.push_back(node);
      }
    }
    for (const std::string& node : idle) {
      if (from_idle.size() + missing.size() == need.count) break;
      if (!idle_counted.contains(node) && need.allows(node) && !need.requires_node(node)) {
        from_idle.push_back(node);
      }
    }
    if (served.contains(job->id)) {  // its elastic nodes are on their way already
      keep_idle(from_idle, *job, "its elastic nodes are on their way");
      continue;
    }

    // 1. Would it start now if the elastic jobs were not there? Then it gets their nodes now.
    // Not behind a job of its partition that would not: Slurm's main scheduler starts none of
    // the jobs after the first one it cannot start in a partition (only backfill does, on the
    // nodes it plans, below). Taking elastic nodes for them would give away batch hosts, a
    // requeue, for jobs that would not start on them.
    bool fits_in_idle = false;
    if (waits_for_nodes(*job) && !blocked.contains(job->partition)) {
      if (from_idle.size() == need.count) {
        // It fits in idle nodes alone. Unless backfill plans it for later (it then waits for
        // something the node model does not see: memory, licences), Slurm starts it there at its
        // next pass. One planned later on elastic nodes is what case 2 is for.
        if (job->start_time <= snapshot.taken_at + kStartSlackS) {
          keep_idle(from_idle, *job, "it fits in idle nodes and starts at the next pass");
          continue;
        }
        fits_in_idle = true;
      } else {
        // The named nodes an elastic job holds (a batch host among them: its job is requeued),
        // then any other elastic node it may start on, in the giving order.
        std::vector<std::string> from_elastic;
        bool named_free = true;
        for (const std::string& node : missing) {
          if (holder.contains(node) && !taken.contains(node) && !withheld.contains(node)) {
            from_elastic.push_back(node);
          } else {
            named_free = false;  // a regular job's, down, or going to another job
          }
        }
        for (const std::string& node : giving_order) {
          if (!named_free || from_idle.size() + from_elastic.size() == need.count) break;
          if (!taken.contains(node) && !withheld.contains(node) && need.allows(node) &&
              !need.requires_node(node)) {
            from_elastic.push_back(node);
          }
        }
        if (named_free && from_idle.size() + from_elastic.size() == need.count) {
          keep_idle(from_idle, *job, "it starts here with the elastic nodes it gets");
          for (const std::string& node : from_elastic) take(node, job->id);
          continue;
        }
        // It does not fit even then: it waits for regular jobs to end, and so do the jobs after
        // it in its partition (backfill may still plan it on elastic nodes, below). One whose
        // named nodes make up its whole count holds back only those: Slurm's main scheduler
        // goes on with the jobs after it, on other nodes.
        if (need.required.size() >= need.count) {
          withheld.insert(need.required.begin(), need.required.end());
          idle_counted.insert(need.required.begin(), need.required.end());
        } else {
          blocked.insert(job->partition);
          blockers[job->partition].push_back(job);
        }
      }
    } else if (waits_for_nodes(*job) && need.required.empty()) {
      // Behind a blocked job: Slurm's backfill starts it at its next pass on idle nodes where it
      // ends before every blocked job planned there starts. Those are kept idle for it: an
      // elastic job grown there is preempted for it seconds later, and each such start then
      // waits out the satellite's GraceTime and a scheduling pass (the congested replay: a burst
      // of 1-node jobs through one node, +20 s by the last). Its own start_time says nothing
      // here: backfill set it while the node was still busy.
      const std::int64_t ends = job->time_limit_minutes > 0
                                    ? snapshot.taken_at + 60LL * job->time_limit_minutes
                                    : std::numeric_limits<std::int64_t>::max();
      const std::vector<const Job*>& ahead_of_it = blockers[job->partition];
      const auto planned_before_end = [&](const std::string& node) {
        return std::ranges::any_of(ahead_of_it, [&](const Job* blocker) {
          return blocker->start_time > 0 && blocker->start_time < ends &&
                 std::ranges::find(blocker->sched_nodes, node) != blocker->sched_nodes.end();
        });
      };
      std::vector<std::string> backfill_nodes;
      for (const std::string& node : idle) {
        if (backfill_nodes.size() == need.count) break;
        if (!idle_counted.contains(node) && need.allows(node) && !planned_before_end(node)) {
          backfill_nodes.push_back(node);
        }
      }
      if (backfill_nodes.size() == need.count) {
        keep_idle(backfill_nodes, *job, "backfill starts it here, behind a blocked job");
        continue;
      }
    }

    // 2. Backfill planned it on elastic nodes, and their leases are what it waits for: it
    // starts no later than the last of them ends. (A job planned after that waits for
    // something else; taking nodes now would waste them.) Preemptable satellites are no lease
    // to wait for (backfill plans past them): those are due once the start is near enough for
    // their job to leave in time.
    std::vector<std::string> planned;
    std::int64_t last_end = 0;
    bool unknown_end = false;
    bool leased = false;            // some planned node is not a preemptable satellite
    double leave_s = kStartSlackS;  // how long before the start the preemptable ones go
    for (const std::string& node : job->sched_nodes) {
      const auto it = holder.find(node);
      if (it == holder.end() || taken.contains(node)) continue;
      planned.push_back(node);
      if (it->second.preemptable) {
        leave_s = std::max(leave_s, kStartSlackS + it->second.job->down_cost_s);
        continue;
      }
      leased = true;
      last_end = std::max(last_end, it->second.end);
      unknown_end = unknown_end || it->second.end <= 0;
    }
    const bool lease_due = leased && (unknown_end || job->start_time <= last_end + kLeaseSlackS);
    const bool start_near =
        static_cast<double>(job->start_time) <= static_cast<double>(snapshot.taken_at) + leave_s;
    const bool due = ahead || lease_due || start_near;
    if (planned.empty() || !due) continue;
    const auto take_planned = [&](const std::string& node) {
      take(node, job->id);
      if (ahead) planned_at[node] = job->start_time;
    };
    // A batch host it does not name can be swapped for another node; one it names cannot.
    const auto swappable = [&](const std::string& node) {
      return is_batch_host(node) && !need.requires_node(node);
    };
    std::stable_partition(planned.begin(), planned.end(),
                          [&](const std::string& node) { return !swappable(node); });
    // It needs that many nodes, not those: idle ones first, then the planned elastic ones; a
    // planned batch host is swapped for another elastic node it may start on, to shrink rather
    // than requeue. Idle nodes count only when backfill could not use them now: for a job that
    // fits in idle nodes alone but is planned on elastic ones, those its plan names.
    if (fits_in_idle) {
      std::erase_if(from_idle, [&](const std::string& node) {
        return std::ranges::find(job->sched_nodes, node) == job->sched_nodes.end();
      });
    }
    from_idle.resize(std::min(from_idle.size(), job->sched_nodes.size()));
    keep_idle(from_idle, *job, "backfill planned it on these and elastic nodes");
    std::size_t wanted = std::min(planned.size(), job->sched_nodes.size() - from_idle.size());
    std::size_t deficit = 0;
    for (const std::string& node : planned) {
      if (wanted == 0) break;
      if (swappable(node)) {
        ++deficit;
      } else {
        take_planned(node);
      }
      --wanted;
    }
    for (const std::string& node : giving_order) {  // stand-ins, never a batch host
      if (deficit == 0) break;
      if (taken.contains(node) || is_batch_host(node) || !need.allows(node)) continue;
      take_planned(node);
      --deficit;
    }
    for (const std::string& node : planned) {  // no stand-in left: the job is requeued
      if (deficit == 0) break;
      if (is_batch_host(node) && !taken.contains(node)) {
        take_planned(node);
        --deficit;
      }
    }
  }
  return result;
}

}  // namespace

Reclaim nodes_to_reclaim(const Snapshot& snapshot, const std::vector<ElasticJob>& elastic,
                         const ElasticPartitions& elastic_partitions,
                         const std::set<std::uint32_t>& served,
                         const std::map<std::string, std::uint32_t>& draining,
                         std::int64_t lease_horizon, const std::string& satellite_qos) {
  std::map<std::string, std::int64_t> unused;
  return choose_reclaims(snapshot, elastic, elastic_partitions, served, draining, lease_horizon,
                         satellite_qos, false, unused);
}

std::map<std::string, std::int64_t> reclaim_takeovers(
    const Snapshot& snapshot, const std::vector<ElasticJob>& elastic,
    const ElasticPartitions& elastic_partitions, const std::set<std::uint32_t>& served,
    const std::map<std::string, std::uint32_t>& draining, const std::string& satellite_qos) {
  std::map<std::string, std::int64_t> planned_at;
  choose_reclaims(snapshot, elastic, elastic_partitions, served, draining, 0, satellite_qos, true,
                  planned_at);
  return planned_at;
}

}  // namespace gaptrain::core
