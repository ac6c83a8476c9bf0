// Who may send what (a pure decision, so it is tested without munge or Slurm). The sender's uid
// is the one munged authenticated; the daemon rejects and logs everything else.
//
//   node_freed, node_taken  root or SlurmUser: they come from prolog/epilog, which slurmd runs
//                           as root (or SlurmUser); a user forging them could fake holes.
//   register                root or the job's owner: nobody may put another user's job under
//                           gaptrain's control.
//   launcher                root or the job's owner: the reply tells the job where to run and
//                           what to drain, and its progress feeds the allocator.
//   status, job             anyone, throttled per uid (request_throttle.hpp); what it shows
//                           follows Slurm's PrivateData (status_privacy.hpp), as squeue/sinfo.
//   operation               root or SlurmUser: pause, resume and drain are the admins'.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

#include "gaptrain/protocol.hpp"

namespace gaptrain::daemon {

// Empty when `sender` may send `request`; otherwise the reason it may not. `job_owner` is the
// uid of the job a registration or launcher report is about, empty when it is unknown.
std::optional<std::string> authorize(const protocol::Request& request, uid_t sender,
                                     uid_t slurm_user, std::optional<uid_t> job_owner);

}  // namespace gaptrain::daemon
