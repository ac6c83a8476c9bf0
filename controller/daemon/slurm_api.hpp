// libslurm's header, included once and as C: it is not warning-clean under our flags (old-style
// casts in macros, C-only constructs), so only the adapter's .cpp files include it, and the
// CMake target adds /usr/include/slurm as a SYSTEM directory.
#pragma once

#include <cstdint>
#include <type_traits>

extern "C" {
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
}

// The parts of slurm_compat (slurm_compat.hpp lists what differs) that take libslurm's own
// types, declared here rather than there: slurm_conf_t is an untagged struct that cannot be
// forward-declared.
namespace gaptrain::daemon::slurm_compat {

// How libslurm's calls on one job (slurm_kill_job, slurm_signal_job, slurm_requeue,
// slurm_load_job) name it: by its id up to 25.x, by a slurm_step_id_t from 26.05 on (whose C
// header maps an id to one with _Generic, which C++ lacks). Read off slurm_kill_job's own
// signature.
using JobRef = std::conditional_t<
    std::is_invocable_v<decltype(&slurm_kill_job), std::uint32_t, std::uint16_t, std::uint16_t>,
    std::uint32_t, slurm_step_id_t>;

// The job `job_id` as those calls take it.
JobRef job_ref(std::uint32_t job_id);

// Names the job that slurm_update_job() acts on.
void set_job_id(job_desc_msg_t& desc, std::uint32_t job_id);

// The id of the job slurm_allocate_resources() made.
std::uint32_t job_id_of(const resource_allocation_response_msg_t& response);

// Frees what slurm_load_ctl_conf() returned.
void free_config(slurm_conf_t* conf);

}  // namespace gaptrain::daemon::slurm_compat
