// Holes: nodes the regular workload leaves idle, and how long each will last (docs/design.md,
// "Holes and reclaims"). Pure: a snapshot in, holes out.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/cluster.hpp"

namespace gaptrain::core {

struct Hole {
  std::string node;
  std::int64_t since = 0;  // when the node became idle (as far as known)
  // When the regular workload takes the node back: the earliest of the start_time of a pending
  // job whose sched_nodes holds the node (backfill's plan) and the start of the next reservation
  // on it. Empty: unknown (nothing planned within backfill's window).
  std::optional<std::int64_t> predicted_end;
  std::optional<std::uint32_t> next_job;   // the pending job that ends it, when a job does
  std::optional<std::string> reservation;  // the reservation that ends it, when one does
};

// Every node of `snapshot` that is idle or PLANNED (idle, reserved by backfill for a pending
// job), not down or drained, and not inside a reservation active at snapshot.taken_at (only the
// reservation's users may run there). `previous` (the holes found by the last call) keeps
// `since` stable for nodes whose last_busy Slurm does not report. In the snapshot's node
// order (Slurm's, i.e. slurm.conf's).
std::vector<Hole> find_holes(const Snapshot& snapshot, const std::vector<Hole>& previous = {});

}  // namespace gaptrain::core
