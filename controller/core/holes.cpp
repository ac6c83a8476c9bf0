#include "core/holes.hpp"

#include <algorithm>
#include <map>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace gaptrain::core {

namespace {

bool is_free(NodeState state) {
  return state == NodeState::idle || state == NodeState::planned;
}

// The pending job backfill plans earliest on a node: the smallest (start_time, id).
struct PlannedStart {
  std::int64_t start = 0;
  std::uint32_t job = 0;
};

}  // namespace

std::vector<Hole> find_holes(const Snapshot& snapshot, const std::vector<Hole>& previous) {
  std::map<std::string, std::int64_t> previous_since;
  for (const Hole& hole : previous) previous_since[hole.node] = hole.since;

  // Jobs' and reservations' node lists indexed by node once, rather than searched for every
  // free node: after a burst of job ends that is thousands of nodes times thousands of jobs.
  std::unordered_map<std::string_view, PlannedStart> planned;
  for (const Job& job : snapshot.jobs) {
    // Backfill only sets sched_nodes with start_time on jobs it planned; a start_time without
    // sched_nodes says nothing about which nodes, so it cannot end a particular hole.
    if (job.state != JobState::pending || job.start_time <= 0) continue;
    for (const std::string& node : job.sched_nodes) {
      const auto [it, inserted] = planned.try_emplace(node, PlannedStart{job.start_time, job.id});
      if (!inserted &&
          std::pair(job.start_time, job.id) < std::pair(it->second.start, it->second.job)) {
        it->second = {job.start_time, job.id};
      }
    }
  }
  std::unordered_set<std::string_view> reserved_now;
  std::unordered_map<std::string_view, const Reservation*> next_reservation;  // the earliest
  for (const Reservation& reservation : snapshot.reservations) {
    const bool active =
        reservation.start_time <= snapshot.taken_at && snapshot.taken_at < reservation.end_time;
    const bool ahead = reservation.start_time > snapshot.taken_at;
    for (const std::string& node : reservation.nodes) {
      if (active) reserved_now.insert(node);
      if (!ahead) continue;
      const auto [it, inserted] = next_reservation.try_emplace(node, &reservation);
      if (!inserted && reservation.start_time < it->second->start_time) it->second = &reservation;
    }
  }

  std::vector<Hole> holes;
  for (const Node& node : snapshot.nodes) {
    if (!is_free(node.state) || reserved_now.contains(node.name)) continue;

    Hole hole;
    hole.node = node.name;
    if (node.last_busy > 0) {
      hole.since = std::min(node.last_busy, snapshot.taken_at);
    } else if (const auto it = previous_since.find(node.name); it != previous_since.end()) {
      hole.since = it->second;
    } else {
      hole.since = snapshot.taken_at;  // first seen idle now
    }

    if (const auto job = planned.find(node.name); job != planned.end()) {
      hole.predicted_end = job->second.start;
      hole.next_job = job->second.job;
    }
    // A reservation ends the hole when it starts strictly before the planned job.
    if (const auto r = next_reservation.find(node.name); r != next_reservation.end()) {
      const Reservation& reservation = *r->second;
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

}  // namespace gaptrain::core
