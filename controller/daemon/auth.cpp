#include "auth.hpp"

namespace gaptrain::daemon {

std::optional<std::string> authorize(RequestKind kind, uid_t sender, uid_t slurm_user,
                                     std::optional<uid_t> job_owner) {
  constexpr uid_t kRoot = 0;
  switch (kind) {
    // Anyone may ask; what they see is PrivateData's business (status_privacy.hpp).
    case RequestKind::status:
    case RequestKind::job: return std::nullopt;
    case RequestKind::node_freed:
    case RequestKind::node_taken:
      if (sender == kRoot || sender == slurm_user) return std::nullopt;
      return "node events are accepted only from root or SlurmUser (uid " +
             std::to_string(slurm_user) + "), not uid " + std::to_string(sender);
    case RequestKind::operation:
      if (sender == kRoot || sender == slurm_user) return std::nullopt;
      return "pause, resume and drain are for root or SlurmUser (uid " +
             std::to_string(slurm_user) + ") only, not uid " + std::to_string(sender);
    case RequestKind::job_registration:
    case RequestKind::launcher_report: {
      if (sender == kRoot) return std::nullopt;
      if (!job_owner) {
        return "the job is not known to Slurm, so uid " + std::to_string(sender) +
               " cannot be checked as its owner";
      }
      if (sender == *job_owner) return std::nullopt;
      const char* what = kind == RequestKind::job_registration ? "register it" : "report for it";
      return "only the job's owner (uid " + std::to_string(*job_owner) + ") or root may " + what +
             ", not uid " + std::to_string(sender);
    }
  }
  return "unknown request kind";
}

}  // namespace gaptrain::daemon
