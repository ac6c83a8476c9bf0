// gaptraind's model between polls and its decision after each, as one object: the sequence
// the daemon runs (controller/daemon/daemon.cpp, polled() then act()) for the simulator, which
// runs it against a replayed cluster, and for the test that checks the daemon decides what the
// simulator decides on the same snapshots (tests/daemon/equivalence_test.cpp). The daemon keeps
// its own copy of these steps because it runs the decision on a worker thread, on copies.
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
#include "core/home.hpp"
#include "core/resizer.hpp"
#include "gaptrain/protocol.hpp"

namespace gaptrain::daemon {

class Controller {
 public:
  // `slurm` must outlive the controller: the resizer acts through it.
  Controller(SlurmActions& slurm, CycleSettings cycle, const ResizerSettings& resizer)
      : resizer_(slurm, resizer), settings_(std::move(cycle)) {}

  // A poll's answer, at `mono_s`: the holes are found again (keeping when each opened) and the
  // elastic jobs follow Slurm. Returns the jobs that ended and the satellites Slurm preempted.
  Refreshed observe(Snapshot snapshot, double mono_s) {
    snapshot_ = std::move(snapshot);
    see_home(snapshot_, settings_.home_partition);
    holes_ = find_holes(snapshot_, holes_);
    return elastic_.refresh(snapshot_, mono_s);
  }

  // A job's registration, as the daemon takes it once the job is seen running: empty on
  // success, otherwise why it is refused.
  std::optional<std::string> add(const protocol::JobRegistration& request, std::int64_t now) {
    return elastic_.add(request, snapshot_, settings_.planner.elastic_partitions, now);
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

}  // namespace gaptrain::daemon
