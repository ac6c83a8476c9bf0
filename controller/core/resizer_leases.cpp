// The resizer between resizes: each managed job's and satellite's lease kept about one lease
// ahead (never past a planned takeover or the user's own limit), the notices of nodes about to
// go, and the satellites whose job is gone released (resizer.hpp).
#include <algorithm>
#include <cmath>

#include "core/job_mark.hpp"
#include "core/resizer.hpp"

namespace gaptrain::core {

std::uint32_t Resizer::lease_minutes(const Job& job, std::uint32_t user_limit,
                                     const Now& now) const {
  const double ran_s = static_cast<double>(std::max<std::int64_t>(0, now.wall - job.start_time));
  auto minutes = static_cast<std::uint32_t>(std::ceil((ran_s + settings_.lease_s) / 60.0));
  if (user_limit != 0) minutes = std::min(minutes, user_limit);
  return std::max<std::uint32_t>(1, minutes);
}

void Resizer::keep_lease(const Job& job, std::uint32_t user_limit, bool waited_for,
                         std::int64_t until, const Now& now) {
  const std::uint32_t current = job.time_limit_minutes;  // 0: none
  const std::uint32_t lease = lease_minutes(job, user_limit, now);
  // Too long (no limit, or more than a lease ahead): shortened to the lease. Not to the
  // takeover, which may be past already: the reclaim releases the node before it.
  const bool too_long = current == 0 || current > lease;
  std::uint32_t renewal = lease;
  if (until > 0) {  // whole minutes from the job's start that end by `until`
    const std::int64_t fits = std::max<std::int64_t>(0, (until - job.start_time) / 60);
    renewal = static_cast<std::uint32_t>(std::min<std::int64_t>(renewal, fits));
  }
  const std::int64_t end =
      current == 0 ? 0 : job.start_time + static_cast<std::int64_t>(current) * 60;
  const double left_s = static_cast<double>(end - now.wall);
  const bool renew = !waited_for && current < renewal && left_s < settings_.lease_s / 2.0;
  const std::uint32_t wanted = too_long ? lease : renewal;
  if (!too_long && !renew) return;
  const auto hold = lease_backoff_until_.find(job.id);
  if (hold != lease_backoff_until_.end() && now.mono < hold->second) return;
  const ActionResult result = slurm_.set_time_limit(job.id, wanted);
  if (!result.ok) {
    ++counts_.failed["lease"];
    lease_backoff_until_[job.id] = now.mono + settings_.retry_min_s * 5.0;
    note(NoteLevel::warning, "action failed",
         {{"ACTION", "lease"},
          {"JOB_ID", job.id},
          {"REASON", result.error},
          {"RETRY_IN_S", seconds_text(settings_.retry_min_s * 5.0)}});
    return;
  }
  lease_backoff_until_.erase(job.id);
  ++counts_.done["lease"];
  note(NoteLevel::info, too_long ? "lease set" : "lease renewed",
       {{"JOB_ID", job.id},
        {"TIME_LIMIT_MIN", wanted},
        {"LEASE_END", job.start_time + static_cast<std::int64_t>(wanted) * 60}});
}

void Resizer::keep_leases(const Snapshot& snapshot, const ElasticJobs& jobs,
                          const std::set<std::string>& reclaimed, const Now& now,
                          const std::map<std::string, std::int64_t>& takeovers) {
  const auto takeover = [&](const std::string& node) {
    const auto it = takeovers.find(node);
    return it == takeovers.end() ? std::int64_t{0} : it->second;
  };
  const auto running = [](const Job* job) {
    return job != nullptr && job->state == JobState::running && job->start_time > 0;
  };
  const JobIndex index(snapshot);
  for (const auto& [job_id, managed] : jobs.jobs()) {
    const Job* job = index.find(job_id);
    if (!running(job)) continue;
    // Known since admission; else (a gaptraind that lost its state file) what the admission
    // marked in the job's record, and only for a job never admitted by gaptraind, its limit.
    const auto limit =
        user_limits_
            .emplace(job_id, read_job_mark(job->admin_comment)
                                 .time_limit_minutes.value_or(job->time_limit_minutes))
            .first;
    // Its nodes on their way to a regular job: reclaimed at this poll, or in a drain for one
    // (in flight, or its Slurm call failing and retried).
    const auto drain = drains_.find(job_id);
    const auto reclaiming = [&](const std::string& node) {
      return reclaimed.contains(node) ||
             (drain != drains_.end() && drain->second.waiting_job != 0 &&
              std::ranges::find(drain->second.drain, node) != drain->second.drain.end());
    };
    // The job's own time limit covers its own nodes (its satellites have theirs). It is renewed
    // while a regular job waits for one of them: the reclaim gives that node back (a shrink, or
    // a requeue for its batch host), and a lease that ran out meanwhile would end the whole job
    // (TIMEOUT), everything since its last checkpoint lost. For the same reason the planned
    // takeover of a node being reclaimed does not bound it; that of any other own node does.
    std::int64_t until = 0;
    for (const std::string& node : managed.nodes) {
      if (managed.satellites.contains(node) || reclaiming(node)) continue;
      const std::int64_t end = takeover(node);
      if (end > 0 && (until == 0 || end < until)) until = end;
    }
    if (!managed.at_home) keep_lease(*job, limit->second, false, until, now);
    // Each satellite's own lease, renewed while no regular job waits for its node: should its
    // reclaim fail, the lease gives the node back, and the job loses that node only.
    for (const auto& [node, satellite_id] : managed.satellites) {
      const Job* satellite = index.find(satellite_id);
      if (running(satellite)) {
        keep_lease(*satellite, 0, reclaimed.contains(node), takeover(node), now);
      }
    }
  }
}

void Resizer::give_notices(const ElasticJobs& jobs,
                           const std::map<std::string, std::int64_t>& takeovers, const Now& now) {
  const auto wall = static_cast<double>(now.wall);
  const double precise = now.wall_precise > 0.0 ? now.wall_precise : wall;
  std::map<std::string, double> leaving;  // node -> the Unix time its drain ends by
  for (const auto& [job_id, drain] : drains_) {
    for (const std::string& node : drain.drain) {
      leaving[node] = precise + std::max(0.0, drain.deadline - now.mono);
    }
  }
  Notices due =
      steady_notices(notices_, due_notices(jobs, leaving, takeovers, wall, settings_.max_notice_s));
  for (Note& change : notice_changes(notices_, due, jobs, wall))
    notes_.push_back(std::move(change));
  notices_ = std::move(due);
}

std::map<std::string, double> Resizer::notice(std::uint32_t job_id) const {
  std::map<std::string, double> at;
  if (const auto it = notices_.find(job_id); it != notices_.end()) {
    for (const auto& [node, notice] : it->second) at[node] = notice.at;
  }
  return at;
}

bool Resizer::release_orphans(const Snapshot& snapshot) {
  std::vector<std::uint32_t> orphans;
  const JobIndex index(snapshot);
  for (const Job& job : snapshot.jobs) {
    const auto owner_id = satellite_owner(job.name);
    const auto satellite_of_an_elastic_partition = [&](const std::string& elastic) {
      return in_satellite_partition(job.partition, elastic, settings_.satellite_partition);
    };
    const std::vector<std::string>& elastic = settings_.elastic_partitions.names();
    if (!owner_id || !holds_nodes(job) ||
        std::none_of(elastic.begin(), elastic.end(), satellite_of_an_elastic_partition)) {
      continue;
    }
    // Only what provably is a satellite of the ended job (is_satellite_of): anyone may name a
    // job "gaptrain:<id>". An owner slurmctld no longer lists (gaptraind was down for longer
    // than MinJobAge) proves nothing: its satellites end at their lease (their time limit).
    const Job* owner = index.find(*owner_id);
    if (owner != nullptr && !holds_nodes(*owner) &&
        is_satellite_of(job, *owner, settings_.satellite_partition)) {
      orphans.push_back(job.id);
    }
  }
  if (orphans.empty()) return false;
  const ActionResult result = slurm_.release(orphans);
  std::string ids;
  for (const std::uint32_t id : orphans) ids += (ids.empty() ? "" : ",") + std::to_string(id);
  if (!result.ok) {
    note(NoteLevel::warning, "action failed",
         {{"ACTION", "release"}, {"JOB_ID", ids}, {"REASON", result.error}});
    return false;
  }
  note(NoteLevel::info, "satellites released: their job ended", {{"JOB_ID", ids}});
  return true;
}

}  // namespace gaptrain::core
