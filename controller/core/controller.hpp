// gaptraind's model between polls and its decision after each, as one object, for the
// simulator, which runs it against a replayed cluster, and for the test that checks the daemon
// decides what the simulator decides on the same snapshots (tests/daemon/equivalence_test.cpp).
// Each step is a core function the daemon calls too (controller/daemon/daemon.cpp, polled()
// then act()): observe_cluster(), ElasticJobs::refresh and add with the settings' satellite
// partition, cycle(). The daemon calls them on its own members because it journals between
// them, restores its state file before the first refresh and decides on a worker thread, on
// copies.
//
// After each poll: observe() (holes and elastic jobs follow the snapshot), then the
// registrations and launcher reports that came in, then decide().
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/cluster.hpp"
#include "core/cycle.hpp"
#include "core/elastic_jobs.hpp"
#include "core/holes.hpp"
#include "core/resizer.hpp"
#include "gaptrain/protocol.hpp"

namespace gaptrain::core {

class Controller {
 public:
  // `slurm` must outlive the controller: the resizer acts through it.
  Controller(SlurmActions& slurm, CycleSettings cycle, const ResizerSettings& resizer)
      : resizer_(slurm, resizer), settings_(std::move(cycle)) {}

  // A poll's answer, at `mono_s`: the holes are found again (keeping when each opened) and the
  // elastic jobs follow Slurm. Returns the jobs that ended and the satellites Slurm preempted.
  Refreshed observe(Snapshot snapshot, double mono_s) {
    snapshot_ = std::move(snapshot);
    (void)observe_cluster(snapshot_, holes_, settings_);
    return elastic_.refresh(snapshot_, mono_s, settings_.satellite_partition);
  }

  // A job's registration, as the daemon takes it once the job is seen running: empty on
  // success, otherwise why it is refused.
  std::optional<std::string> add(const protocol::JobRegistration& request, std::int64_t now) {
    return elastic_.add(request, snapshot_, settings_.planner.elastic_partitions, now,
                        settings_.satellite_partition);
  }

  // A launcher's report; false when its job is not registered.
  bool report(const protocol::LauncherReport& report, std::int64_t now, double mono_s) {
    return elastic_.report(report, now, mono_s);
  }

  // The decision over the last snapshot (cycle.hpp).
  CycleOutcome decide(const Now& now) {
    return cycle(snapshot_, holes_, elastic_, resizer_, now, settings_);
  }

  const Snapshot& snapshot() const noexcept { return snapshot_; }
  const std::vector<Hole>& holes() const noexcept { return holes_; }
  const ElasticJobs& jobs() const noexcept { return elastic_; }
  Resizer& resizer() noexcept { return resizer_; }
  const CycleSettings& settings() const noexcept { return settings_; }

 private:
  Snapshot snapshot_;
  std::vector<Hole> holes_;
  ElasticJobs elastic_;
  Resizer resizer_;
  CycleSettings settings_;
};

}  // namespace gaptrain::core
