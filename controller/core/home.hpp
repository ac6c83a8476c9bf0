// The home mode (DaemonConfig::home_partition; docs/admin.md, "A home for batch scripts"): an
// admitted elastic job's batch script runs on a shared home node that never trains, and every
// node it trains on is a satellite, which a regular job may take (Slurm preempts it) whatever
// gaptraind is doing. Such a job loses no batch host to a regular job, so it is never requeued:
// with no node left it is paused (its launcher waits on the home node) until it is given nodes
// again.
//
// The decision core sees the mode through the snapshot alone: a job at home is shown as the
// elastic job it is, in the partition it trains in (its mark's trains_in, job_mark.hpp), holding
// no node of its own; home nodes are no holes. Pure.
#pragma once

#include <string_view>

#include "core/cluster.hpp"

namespace gaptrain::core {

// Rewrites `snapshot` for the home mode: every job in `home_partition` whose AdminComment mark
// names the partition it trains in gets that partition, `at_home`, and no home node in `nodes`
// (its batch host stays, for the launcher) and the per-node GRES its satellites ask for (the mark's
// tres); the home partition's nodes leave `snapshot.nodes`. Nothing changes when `home_partition`
// is empty.
void see_home(Snapshot& snapshot, std::string_view home_partition);

}  // namespace gaptrain::core
