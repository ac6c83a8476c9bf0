#include "slurm_compat.hpp"

#include <cerrno>
#include <type_traits>

#include "slurm_api.hpp"

// Older releases lack what gaptraind relies on: slurm_init() (20.11) and the PLANNED node
// state that marks a hole with a known end (22.05).
#if SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(22, 5, 0)
#error "gaptrain needs Slurm 22.05 or newer: build it against the libslurm-dev of such a release"
#endif

namespace gaptrain::daemon::slurm_compat {

namespace {

// The job id field of a job description or an allocation's answer: job_id where the release
// has it, else (26.05) step_id.job_id.
template <typename Message>
auto& job_id_field(Message& message) {
  if constexpr (requires { message.job_id; }) {
    return message.job_id;
  } else {
    return message.step_id.job_id;
  }
}

template <typename Ref>
Ref job_ref_of(std::uint32_t job_id) {
  if constexpr (std::is_same_v<Ref, std::uint32_t>) {
    return job_id;
  } else {
    Ref ref{};  // no sluid (26.05): slurmctld finds the job by its id
    ref.job_id = job_id;
    ref.step_het_comp = NO_VAL;
    ref.step_id = NO_VAL;
    return ref;
  }
}

}  // namespace

JobRef job_ref(std::uint32_t job_id) {
  return job_ref_of<JobRef>(job_id);
}

void set_job_id(job_desc_msg_t& desc, std::uint32_t job_id) {
  job_id_field(desc) = job_id;
}

std::uint32_t job_id_of(const resource_allocation_response_msg_t& response) {
  return job_id_field(response);
}

void free_config(slurm_conf_t* conf) {
#ifdef GAPTRAIN_SLURM_HAS_FREE_CONF
  slurm_free_conf(conf);
#else
  slurm_free_ctl_conf(conf);
#endif
}

int last_error() {
#ifdef GAPTRAIN_SLURM_HAS_GET_ERRNO
  return slurm_get_errno();
#else
  return errno;
#endif
}

std::string error_text(int code) {
  const char* text = slurm_strerror(code);
  return std::string(text == nullptr ? "unknown error" : text) + " (" + std::to_string(code) + ")";
}

std::string last_error_text() {
  return error_text(last_error());
}

std::string cannot_allocate_for(std::uint32_t uid, std::uint32_t gid) {
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0)
  // SLURM_AUTH_NOBODY, which slurm_init_job_desc_msg() sets for "not given" and auth/munge
  // refuses in a credential.
  constexpr std::uint32_t kNotGiven = 65534;
  if (uid == kNotGiven || gid == kNotGiven) {
    return "Slurm " + built_release() + " reads uid or gid 65534 as not given and refuses " +
           "credentials of either: run elastic jobs as a user and group other than nobody " +
           "and nogroup";
  }
#else
  (void)uid;
  (void)gid;
#endif
  return {};
}

std::string built_release() {
  return std::to_string(SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER)) + "." +
         (SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER) < 10 ? "0" : "") +
         std::to_string(SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER)) + "." +
         std::to_string(SLURM_VERSION_MICRO(SLURM_VERSION_NUMBER));
}

}  // namespace gaptrain::daemon::slurm_compat
