// What differs between libslurm releases (22.05 ... 26.05), in one place: the rest of gaptraind
// calls these and never tests the Slurm version itself. The differences handled so far:
//  - the error of a failed call: 22.05 reads it through slurm_get_errno(); later releases
//    removed that function and set errno, which the caller reads directly (both are per
//    thread). GAPTRAIN_SLURM_HAS_GET_ERRNO is found by CMake in the release's own header.
//  - acting for another user: up to 23.02 slurmctld let root (or SlurmUser) name the owner of
//    an allocation in the job description's user_id/group_id. From 23.11 on (when salloc and
//    srun lost --uid/--gid) its allocation RPC ignores both and gives the allocation to the
//    credential's user: root's satellites belonged to root, and the job's launcher could not
//    start steps in them. allocate_as therefore asks with the owner's own credential (a child
//    process that takes the owner's ids), which every release accepts: one path for all.
//  - uid or gid 65534: 23.02 reads it in a job description as "not given" (and puts the
//    caller's in its place), and 24.11's auth/munge refuses a credential of either as invalid,
//    so no allocation can be made for a job of nobody or nogroup.
//  - the calls on one job (kill, signal, requeue, load): a job id up to 25.x, a slurm_step_id_t
//    in 26.05 (JobRef and job_ref, slurm_api.hpp).
//  - a job's id in a job description and in an allocation's answer: a field job_id up to
//    25.x; 26.05 keeps it only in step_id.job_id (a slurm_step_id_t). set_job_id and
//    job_id_of (slurm_api.hpp) use whichever field the release's struct has.
//  - freeing slurm_load_ctl_conf()'s answer: slurm_free_ctl_conf() up to 25.x, renamed
//    slurm_free_conf() in 26.05 (free_config; GAPTRAIN_SLURM_HAS_FREE_CONF is found by CMake
//    in the release's own header).
//  - the release itself, for the start-up line that names the Slurm gaptraind was built
//    against beside the one slurmctld runs (docs/admin.md: what to rebuild on an upgrade).
// Only .cpp files of the adapter include <slurm/slurm.h>; this header does not.
#pragma once

#include <cstdint>
#include <string>

struct job_descriptor;  // libslurm's job_desc_msg_t

namespace gaptrain::daemon::slurm_compat {

// The error code of the libslurm call that just failed on this thread. Read it before any
// other call (logging included) can overwrite it.
int last_error();

// "<Slurm's text for code> (<code>)", e.g. "Invalid job id specified (2017)".
std::string error_text(int code);

// error_text(last_error()).
std::string last_error_text();

// Why slurmctld would not make an allocation owned by uid:gid (allocate_as); empty when it
// would.
std::string cannot_allocate_for(std::uint32_t uid, std::uint32_t gid);

// What allocate_as got: a job id (granted: with nodes now), or the error.
struct OwnedAllocation {
  std::uint32_t job_id = 0;
  bool granted = false;
  std::string error;  // Slurm's text and code, or why the request could not be made
};

// slurm_allocate_resources(desc) with the credential of uid:gid, so that slurmctld records them
// as the allocation's owner (sets desc's user_id and group_id to them as well). The caller must
// be root, or already that user. Call it from the thread that makes gaptraind's libslurm calls.
OwnedAllocation allocate_as(std::uint32_t uid, std::uint32_t gid, job_descriptor& desc);

// The Slurm release of the headers gaptraind was compiled against, "24.11.5".
std::string built_release();

}  // namespace gaptrain::daemon::slurm_compat
