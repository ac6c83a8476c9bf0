#include "auth.hpp"

#include <type_traits>
#include <variant>

namespace gaptrain::daemon {

namespace {

constexpr uid_t kRoot = 0;

std::optional<std::string> job_owner_only(std::string_view what, uid_t sender,
                                          std::optional<uid_t> job_owner) {
  if (sender == kRoot) return std::nullopt;
  if (!job_owner) {
    return "the job is not known to Slurm, so uid " + std::to_string(sender) +
           " cannot be checked as its owner";
  }
  if (sender == *job_owner) return std::nullopt;
  return "only the job's owner (uid " + std::to_string(*job_owner) + ") or root may " +
         std::string(what) + ", not uid " + std::to_string(sender);
}

}  // namespace

std::optional<std::string> authorize(const protocol::Request& request, uid_t sender,
                                     uid_t slurm_user, std::optional<uid_t> job_owner) {
  return std::visit(
      [&](const auto& message) -> std::optional<std::string> {
        using T = std::decay_t<decltype(message)>;
        // Anyone may ask; what they see is PrivateData's business (status_privacy.hpp).
        if constexpr (std::is_same_v<T, protocol::StatusRequest> ||
                      std::is_same_v<T, protocol::JobRequest>) {
          return std::nullopt;
        } else if constexpr (std::is_same_v<T, protocol::NodeFreed> ||
                             std::is_same_v<T, protocol::NodeTaken>) {
          if (sender == kRoot || sender == slurm_user) return std::nullopt;
          return "node events are accepted only from root or SlurmUser (uid " +
                 std::to_string(slurm_user) + "), not uid " + std::to_string(sender);
        } else if constexpr (std::is_same_v<T, protocol::OperationRequest>) {
          if (sender == kRoot || sender == slurm_user) return std::nullopt;
          return "pause, resume and drain are for root or SlurmUser (uid " +
                 std::to_string(slurm_user) + ") only, not uid " + std::to_string(sender);
        } else if constexpr (std::is_same_v<T, protocol::JobRegistration>) {
          return job_owner_only("register it", sender, job_owner);
        } else {
          static_assert(std::is_same_v<T, protocol::LauncherReport>, "a request without a rule");
          return job_owner_only("report for it", sender, job_owner);
        }
      },
      request);
}

}  // namespace gaptrain::daemon
