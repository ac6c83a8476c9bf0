// How a pending elastic job waits for gaptraind to admit it (docs/admin.md, "Queue policy").
// Two ways, both keep Slurm from starting the job by itself:
//  - held (sbatch --hold): priority 0 in Slurm, which *is* the hold, so Slurm computes no
//    priority for it and held jobs are admitted first come, first served;
//  - parked (sbatch --begin=now+365days, what `gaptrain submit` writes): a begin time far
//    ahead. The job is not eligible (scheduler and backfill skip it, so it delays no regular
//    job), yet Slurm keeps computing its priority (fair-share, QOS, nice, partition, size),
//    and gaptraind admits parked jobs in that order. Admission sets the begin time to now.
// A begin time counts as parking when it is at least kParkedAheadS ahead: far beyond any begin
// time a user means (a genuine --begin goes with --hold, and is waited for). Pure.
#pragma once

#include <cstdint>

#include "core/cluster.hpp"

namespace gaptrain::core {

// 180 days: half of what `gaptrain submit` and gaptraind write (365 days), so that a parked
// job stays parked however long it waits in practice.
inline constexpr std::int64_t kParkedAheadS = std::int64_t{180} * 24 * 3600;
// How far ahead gaptraind sets the begin time of a job it parks (a requeued job, an admission
// Slurm did not start).
inline constexpr std::int64_t kParkForS = std::int64_t{365} * 24 * 3600;

// True when `job` is pending, not held, and its begin time (Slurm's eligible time for a
// pending job) is at least kParkedAheadS after `now` (epoch s).
bool is_parked(const Job& job, std::int64_t now);

// True when `job` waits for gaptraind: held, or parked.
inline bool waits_for_admission(const Job& job, std::int64_t now) {
  return job.state == JobState::pending && (job.held || is_parked(job, now));
}

}  // namespace gaptrain::core
