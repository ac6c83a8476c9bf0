// What `gaptrain status` shows to whom: Slurm's PrivateData (slurm.conf), applied as squeue
// and sinfo apply it, so that gaptrain shows no user more than Slurm would. Root and SlurmUser
// see everything; any other user, with PrivateData=jobs, sees their own jobs only (other job
// ids are left out of node lists, holes' next_job and actions, and other users' elastic jobs
// are not listed); with PrivateData=nodes no node states and no holes; with
// PrivateData=reservations no reservation names. (Slurm's operators and administrators of
// AdminLevel are not known to gaptraind: they see what users see.) Pure.
#pragma once

#include <json/value.h>
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>

#include "core/cluster.hpp"
#include "core/elastic_jobs.hpp"

namespace gaptrain::daemon {

struct StatusViewer {
  uid_t uid = 0;
  bool privileged = false;  // root or SlurmUser
};

// Removes from `status` (status.hpp's object, its "actions" included) what `private_data`
// hides from `viewer`. Job owners come from `snapshot` and `elastic`; a job known to neither
// counts as another user's.
// Empty when `viewer` may see the history of job `job_id`, owned by `owner`: root and SlurmUser
// always, anyone without PrivateData=jobs, else its owner only; otherwise the refusal, which
// says so (a job hidden is refused, never shown empty).
std::optional<std::string> job_view_refusal(std::uint32_t job_id, uid_t owner,
                                            const core::PrivateData& private_data,
                                            const StatusViewer& viewer);

void apply_private_data(Json::Value& status, const core::Snapshot& snapshot,
                        const core::ElasticJobs& elastic, const core::PrivateData& private_data,
                        const StatusViewer& viewer);

}  // namespace gaptrain::daemon
