// What gaptraind asks Slurm: the cluster as a Snapshot, and who SlurmUser is. One small
// interface so that the daemon can run against a simulated cluster (tests/bench's load
// generator) as it runs against slurmctld (SlurmSource, the libslurm adapter).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

#include "cluster.hpp"
#include "slurm_release.hpp"

namespace gaptrain::daemon {

class SlurmQueries {
 public:
  virtual ~SlurmQueries() = default;

  struct Result {
    bool ok = false;
    std::string error;  // why not, when !ok (Slurm's message)
  };

  // Refreshes `snapshot` (taken_at = now). `full`: ignore any cached update times (a periodic
  // safety net in case a change did not bump them). On failure `snapshot` is left as it was.
  virtual Result poll(Snapshot& snapshot, std::int64_t now, bool full) = 0;

  // SlurmUser's uid, from slurmctld's configuration.
  virtual Result load_slurm_user(uid_t& uid) = 0;

  // slurmctld's release and SchedulerParameters, and the release gaptraind was built against.
  virtual Result load_controller_config(SlurmControllerConfig& config) = 0;
};

}  // namespace gaptrain::daemon
