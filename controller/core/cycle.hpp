// The whole decision gaptraind makes after a poll, as one call: the model's fresh snapshot in,
// Slurm actions out through the SlurmActions port the resizer holds (docs/design.md, "One
// decision core"). gaptraind runs it on its Slurm worker against libslurm; `gaptrain simulate`
// runs it against a replayed cluster (controller/simulator/replayed_slurm.hpp): what the
// simulator measures is what the daemon does.
//
// One cycle:
//  1. forget what the resizer knew of jobs that are gone; free satellites whose job ended;
//  2. the reclaims: which elastic nodes the regular workload waits for (nodes_to_reclaim,
//     computed once, over what every job holds now; nodes already draining count first);
//  3. the plan: the reclaims as shrinks and requeues, then the allocator over the holes (less
//     those promised to a waiting job) and what the jobs keep after their drains;
//  4. the resizer carries it out: drains hurried for a waiting job, grows and admissions at
//     once, shrinks and requeues once the launcher let go, leases kept;
//  5. the notices (notice.hpp): each job is told which of its nodes go, and when.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "allocator/allocation.hpp"
#include "core/cluster.hpp"
#include "core/config.hpp"
#include "core/elastic_jobs.hpp"
#include "core/holes.hpp"
#include "core/notes.hpp"
#include "core/planner.hpp"
#include "core/resizer.hpp"
#include "core/slurm_release.hpp"

namespace gaptrain::core {

struct CycleSettings {
  PlannerSettings planner;
  bool resize = true;    // false: plan and say what would be done, change nothing
  double lease_s = 0.0;  // the lease gaptraind gives (0: none known)
  // The home mode (home.hpp): each snapshot is seen through see_home() before anything else.
  std::string home_partition;
  // How a poll's snapshot is read (observe_cluster(), ElasticJobs): the node types gaptraind.json
  // names, and the partition satellites are allocated in ("": their job's).
  std::vector<std::string> node_types;
  std::string satellite_partition;
};

// What a poll changed in the holes, for the journal.
struct HoleChanges {
  std::vector<Hole> opened;
  std::vector<Hole> closed;       // as they were last seen
  std::vector<Hole> end_changed;  // with the new predicted end
};

// A poll's snapshot as every decision sees it: the node types assigned and the home nodes set
// apart (see_home), then the holes found again, keeping when each opened. The daemon and the
// Controller both start from here.
HoleChanges observe_cluster(Snapshot& snapshot, std::vector<Hole>& holes,
                            const CycleSettings& settings);

// What gaptraind.json sets of the cycle and of the resizer: the daemon and the simulator take
// them from here, so that both run the core with the same settings. `behaviour`: what slurmctld's
// configuration changes (disable_job_shrink), once known.
CycleSettings cycle_settings(const DaemonConfig& config,
                             const std::optional<SlurmBehaviour>& behaviour = std::nullopt,
                             Operation operation = Operation::running);
ResizerSettings resizer_settings(const DaemonConfig& config);

struct CycleOutcome {
  // The allocator's answer; empty when there was nothing to decide (no elastic job).
  std::optional<allocator::AllocationResult> allocation;
  // Jobs whose own inputs the allocator refuses, with why (Plan::set_aside).
  std::vector<std::pair<std::uint32_t, std::string>> set_aside;
  // Held jobs the queue policy does not admit yet, with why (Plan::waiting).
  std::vector<std::pair<std::uint32_t, std::string>> waiting;
  // Idle nodes kept for waiting regular jobs (Reclaim::kept_idle): not grown into.
  std::map<std::string, KeptIdle> kept_idle;
  bool changed = false;  // Slurm was changed: the caller polls soon
  Notes notes;           // what was done and why, for the journal
  // The resizes carried out, for the jobs' histories (job_history.hpp).
  std::vector<std::pair<std::uint32_t, ResizeRecord>> resizes;
};

// One decision over `snapshot` at `now`. `holes` are find_holes(snapshot); `elastic` are the
// managed jobs, refreshed from the snapshot (ElasticJobs::refresh). Resizes change `elastic`
// (the nodes a grow gave, a shrink kept) and `resizer` (drains, backoffs, promises, leases).
CycleOutcome cycle(const Snapshot& snapshot, const std::vector<Hole>& holes, ElasticJobs& elastic,
                   Resizer& resizer, const Now& now, const CycleSettings& settings);

}  // namespace gaptrain::core
