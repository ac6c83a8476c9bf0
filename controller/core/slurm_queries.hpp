// What gaptraind asks Slurm: the cluster as a Snapshot, and slurmctld's configuration. One small
// interface so that the daemon can run against a simulated cluster (tests/bench's load
// generator) as it runs against slurmctld (SlurmSource, the libslurm adapter).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

#include "core/cluster.hpp"
#include "core/slurm_release.hpp"

namespace gaptrain::core {

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

  // What gaptraind needs of slurmctld's configuration: who SlurmUser is, what PrivateData hides,
  // and slurmctld's release and SchedulerParameters (slurm_release.hpp).
  struct Config {
    uid_t slurm_user = 0;
    PrivateData private_data;
    SlurmControllerConfig controller;
  };
  virtual Result load_config(Config& config) = 0;
};

}  // namespace gaptrain::core
