// gaptraind's model between polls and its decision after each: the one sequence of steps that
// gaptraind (controller/daemon/daemon.cpp) and the simulator (controller/simulator) both run,
// and that tests/daemon/equivalence_test.cpp holds the daemon and the simulator to.
//
// After each poll: observe() (the holes and the elastic jobs follow the snapshot, what was saved
// by an earlier run restored at the first), then the registrations and launcher reports that
// came in (add(), report()), then decide(), then record() (the job histories follow the
// decision). The daemon decides on a copy, on its worker thread, and takes the copy back; what
// the daemon itself keeps is transport, threads, timers, systemd and the state file's bytes.
// Each step returns what it has to say as notes (notes.hpp), which the daemon journals and the
// simulator drops.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/cluster.hpp"
#include "core/cycle.hpp"
#include "core/elastic_jobs.hpp"
#include "core/holes.hpp"
#include "core/job_history.hpp"
#include "core/notes.hpp"
#include "core/resizer.hpp"
#include "core/saved_state.hpp"
#include "gaptrain/protocol.hpp"

namespace gaptrain::core {

class Controller {
 public:
  // `slurm` must outlive the controller: the resizer acts through it. With `history`, each
  // job's history is kept (`gaptrain job`); the simulator keeps none. Copies share the
  // histories (a copy to decide on does not copy megabytes of progress): only the thread that
  // owns the original touches them, and decide() does not.
  Controller(SlurmActions& slurm, CycleSettings cycle, const ResizerSettings& resizer,
             std::optional<HistoryLimits> history = std::nullopt);

  // What the next steps decide with: a reload, a pause, what Slurm allows changed them.
  void set_settings(CycleSettings cycle, const ResizerSettings& resizer);
  void set_history_limits(HistoryLimits limits);

  // A poll's answer, at `now`: the holes are found again (keeping when each opened), then what
  // `restore` holds is restored (the first poll after a restart: the jobs that still run are
  // managed again, their users' limits kept), then the elastic jobs follow Slurm (those that
  // ended are forgotten, satellites Slurm preempted are noted). Notes: the holes opened, closed
  // and moved, the jobs restored or not, ended and preempted.
  Notes observe(Snapshot snapshot, const Now& now, const SavedState* restore = nullptr);

  // A job's registration, as the daemon takes it once the job is seen running: empty on
  // success, otherwise why it is refused.
  std::optional<std::string> add(const protocol::JobRegistration& request, std::int64_t now);

  // A launcher's report at `now`; false when its job is not registered. Its progress goes to
  // the job's history (read on the history's clock at `now.wall_precise`).
  bool report(const protocol::LauncherReport& report, const Now& now);

  // The decision over the last snapshot (cycle.hpp). Touches no history: it may run on a copy,
  // on another thread.
  CycleOutcome decide(const Now& now);
  // The histories follow a decision made at `now`: its resizes, the jobs' nodes and curves.
  void record(const CycleOutcome& outcome, const Now& now);

  // What a restart must not forget, `operation` (the daemon's) with it.
  SavedState saved(Operation operation) const;

  const Snapshot& snapshot() const noexcept { return snapshot_; }
  const std::vector<Hole>& holes() const noexcept { return holes_; }
  const ElasticJobs& jobs() const noexcept { return elastic_; }
  const Resizer& resizer() const noexcept { return resizer_; }
  Resizer& resizer() noexcept { return resizer_; }
  const CycleSettings& settings() const noexcept { return settings_; }
  // Null without a history. Mutable: a reader ticks its clock first (JobHistory::tick).
  JobHistory* history() noexcept { return history_.get(); }

 private:
  void restore(const SavedState& saved, Notes& notes);
  // The histories follow the model: nodes, curves and goodput of every managed job, and the end
  // of those neither managed nor in Slurm any more.
  void follow_history(double now);
  void follow_history(const ElasticJob& job, double now);

  Snapshot snapshot_;
  std::vector<Hole> holes_;
  ElasticJobs elastic_;
  Resizer resizer_;
  CycleSettings settings_;
  std::shared_ptr<JobHistory> history_;
};

}  // namespace gaptrain::core
