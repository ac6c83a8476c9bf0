// The thin adapter between libslurm and the pure model: asks slurmctld for nodes, jobs and
// reservations and turns the answers into a Snapshot of plain values. Nothing else in the
// daemon includes <slurm/slurm.h>.
//
// Each load passes the last update time Slurm reported, so an unchanged cluster costs one
// SLURM_NO_CHANGE_IN_DATA round trip per table; the previous answer is kept and reused. Calls
// block for up to slurm.conf's MessageTimeout when slurmctld is unreachable: the daemon makes
// them on its Slurm worker thread (worker.hpp), never on its event loop.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>

#include "core/cluster.hpp"
#include "core/slurm_queries.hpp"

namespace gaptrain::daemon {

class SlurmSource final : public core::SlurmQueries {
 public:
  // Initializes libslurm from SLURM_CONF or /etc/slurm/slurm.conf (slurm_init).
  SlurmSource();
  ~SlurmSource();
  SlurmSource(const SlurmSource&) = delete;
  SlurmSource& operator=(const SlurmSource&) = delete;

  // SlurmQueries. poll() passes the cached update times unless `full`.
  Result poll(core::Snapshot& snapshot, std::int64_t now, bool full) override;

  // SlurmUser, PrivateData, release and SchedulerParameters, from slurmctld's configuration
  // (slurm_load_ctl_conf).
  Result load_config(Config& config) override;

 private:
  struct Cache;
  std::unique_ptr<Cache> cache_;
};

}  // namespace gaptrain::daemon
