#include "holes.hpp"

#include <algorithm>
#include <map>

namespace gaptrain::daemon {

namespace {

bool is_free(NodeState state) {
  return state == NodeState::idle || state == NodeState::planned;
}

bool contains(const std::vector<std::string>& nodes, const std::string& node) {
  return std::find(nodes.begin(), nodes.end(), node) != nodes.end();
}

}  // namespace

std::vector<Hole> find_holes(const Snapshot& snapshot, const std::vector<Hole>& previous) {
  std::map<std::string, std::int64_t> previous_since;
  for (const Hole& hole : previous) previous_since[hole.node] = hole.since;

  std::vector<Hole> holes;
  for (const Node& node : snapshot.nodes) {
    if (!is_free(node.state)) continue;
    const bool reserved_now = std::any_of(
        snapshot.reservations.begin(), snapshot.reservations.end(), [&](const Reservation& r) {
          return r.start_time <= snapshot.taken_at && snapshot.taken_at < r.end_time &&
                 contains(r.nodes, node.name);
        });
    if (reserved_now) continue;

    Hole hole;
    hole.node = node.name;
    if (node.last_busy > 0) {
      hole.since = std::min(node.last_busy, snapshot.taken_at);
    } else if (const auto it = previous_since.find(node.name); it != previous_since.end()) {
      hole.since = it->second;
    } else {
      hole.since = snapshot.taken_at;  // first seen idle now
    }

    for (const Job& job : snapshot.jobs) {
      // Backfill only sets sched_nodes with start_time on jobs it planned; a start_time without
      // sched_nodes says nothing about which nodes, so it cannot end a particular hole.
      if (job.state != JobState::pending || job.start_time <= 0) continue;
      if (!contains(job.sched_nodes, node.name)) continue;
      if (!hole.predicted_end || job.start_time < *hole.predicted_end ||
          (job.start_time == *hole.predicted_end && hole.next_job && job.id < *hole.next_job)) {
        hole.predicted_end = job.start_time;
        hole.next_job = job.id;
      }
    }
    for (const Reservation& reservation : snapshot.reservations) {
      if (reservation.start_time <= snapshot.taken_at) continue;  // active ones excluded above
      if (!contains(reservation.nodes, node.name)) continue;
      if (!hole.predicted_end || reservation.start_time < *hole.predicted_end) {
        hole.predicted_end = reservation.start_time;
        hole.next_job.reset();
        hole.reservation = reservation.name;
      }
    }
    holes.push_back(std::move(hole));
  }
  return holes;
}

}  // namespace gaptrain::daemon
