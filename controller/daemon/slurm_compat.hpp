// What differs between libslurm releases (22.05 ... 25.x), in one place: the rest of gaptraind
// calls these and never tests the Slurm version itself. The differences handled so far:
//  - the error of a failed call: 22.05 reads it through slurm_get_errno(); later releases
//    removed that function and set errno, which the caller reads directly (both are per
//    thread). GAPTRAIN_SLURM_HAS_GET_ERRNO is found by CMake in the release's own header.
//  - acting for another user: 23.02 and later read user id or group id 65534 in a job
//    description as "not given" and put the caller's (root's) in its place, so an allocation
//    made for a job of uid or gid 65534 (nobody, nogroup) would belong to root.
//  - the release itself, for the start-up line that names the Slurm gaptraind was built
//    against beside the one slurmctld runs (docs/admin.md: what to rebuild on an upgrade).
// Only .cpp files of the adapter include <slurm/slurm.h>; this header does not.
#pragma once

#include <cstdint>
#include <string>

namespace gaptrain::daemon::slurm_compat {

// The error code of the libslurm call that just failed on this thread. Read it before any
// other call (logging included) can overwrite it.
int last_error();

// "<Slurm's text for code> (<code>)", e.g. "Invalid job id specified (2017)".
std::string error_text(int code);

// error_text(last_error()).
std::string last_error_text();

// Why slurmctld would not make an allocation owned by uid:gid when root asks on their behalf;
// empty when it would.
std::string cannot_allocate_for(std::uint32_t uid, std::uint32_t gid);

// The Slurm release of the headers gaptraind was compiled against, "24.11.5".
std::string built_release();

}  // namespace gaptrain::daemon::slurm_compat
