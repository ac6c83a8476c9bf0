#include "slurm_compat.hpp"

#include <cerrno>

#include "slurm_api.hpp"

// Older releases lack what gaptraind relies on: slurm_init() (20.11) and the PLANNED node
// state that marks a hole with a known end (22.05).
#if SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(22, 5, 0)
#error "gaptrain needs Slurm 22.05 or newer: build it against the libslurm-dev of such a release"
#endif

namespace gaptrain::daemon::slurm_compat {

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
