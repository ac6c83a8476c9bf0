#include "simulated_slurm.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <utility>

namespace gaptrain::bench {

namespace {

using core::ActionResult;

constexpr std::uint32_t kTimeLimitMinutes = 60;
constexpr double kPlannedStartAheadS = 3600.0;

// Regular job sizes, small ones the most common as on a real machine.
constexpr std::array<int, 11> kJobSizes = {1, 1, 1, 2, 2, 4, 8, 16, 32, 64, 128};

std::int64_t wall_seconds() {
  return static_cast<std::int64_t>(std::time(nullptr));
}

sim::HoleTrace cluster_of(int nodes) {
  sim::HoleTrace trace;
  for (int i = 0; i < nodes; ++i) {
    std::array<char, 16> name{};
    std::snprintf(name.data(), name.size(), "n%05d", i + 1);
    trace.node_names.emplace_back(name.data());
  }
  return trace;
}

}  // namespace

SimulatedSlurm::SimulatedSlurm(const ClusterShape& shape)
    : random_(shape.seed),
      replay_(cluster_of(shape.nodes), shape.nodes, "elastic", wall_seconds()) {
  // The elastic jobs run on the first nodes, admitted as gaptraind would admit them.
  for (int e = 0; e < shape.elastic_jobs && e < shape.nodes; ++e) {
    replay_.free_node(e, sim::kUnknownEnd);
    const std::uint32_t id =
        replay_.submit_elastic("train-" + std::to_string(e), 1, shape.elastic_max_nodes);
    core::AdmitRequest admit;
    admit.job_id = id;
    admit.nodes = {replay_.node_name(e)};
    admit.time_limit_minutes = kTimeLimitMinutes;
    replay_.admit(admit);
    elastic_.push_back({id, "trainer", replay_.node_name(e), shape.elastic_max_nodes});
  }
}

void SimulatedSlurm::catch_up() {
  replay_.set_time(static_cast<double>(wall_seconds() - replay_.epoch()));
}

ActionResult SimulatedSlurm::counted(ActionResult result) {
  if (!result.ok) ++calls_.refused;
  return result;
}

SimulatedSlurm::Result SimulatedSlurm::poll(core::Snapshot& snapshot, std::int64_t now, bool full) {
  const std::lock_guard lock(mutex_);
  catch_up();
  ++calls_.polls;
  version_polled_ = version_;
  return replay_.poll(snapshot, now, full);
}

SimulatedSlurm::Result SimulatedSlurm::load_config(Config& config) {
  const std::lock_guard lock(mutex_);
  return replay_.load_config(config);  // slurmctld as root: root's events are accepted
}

ActionResult SimulatedSlurm::shrink(const core::ShrinkRequest& request) {
  const std::lock_guard lock(mutex_);
  catch_up();
  ++calls_.shrinks;
  return counted(replay_.shrink(request));
}

core::GrowResult SimulatedSlurm::grow(const core::GrowRequest& request) {
  const std::lock_guard lock(mutex_);
  catch_up();
  ++calls_.grows;
  core::GrowResult result = replay_.grow(request);
  if (result.ok) {
    calls_.grown_nodes += request.add_nodes.size();
  } else {
    ++calls_.refused;
  }
  return result;
}

ActionResult SimulatedSlurm::release(const std::vector<std::uint32_t>& satellite_ids) {
  const std::lock_guard lock(mutex_);
  catch_up();
  ++calls_.releases;
  return counted(replay_.release(satellite_ids));
}

ActionResult SimulatedSlurm::set_time_limit(std::uint32_t job_id, std::uint32_t minutes) {
  const std::lock_guard lock(mutex_);
  catch_up();
  ++calls_.time_limits;
  return counted(replay_.set_time_limit(job_id, minutes));
}

ActionResult SimulatedSlurm::admit(const core::AdmitRequest& request) {
  const std::lock_guard lock(mutex_);
  catch_up();
  ++calls_.admits;
  return counted(replay_.admit(request));
}

ActionResult SimulatedSlurm::requeue(std::uint32_t job_id) {
  const std::lock_guard lock(mutex_);
  catch_up();
  ++calls_.requeues;
  return counted(replay_.requeue(job_id));
}

ActionResult SimulatedSlurm::park(std::uint32_t job_id) {
  const std::lock_guard lock(mutex_);
  catch_up();
  ++calls_.parks;
  return counted(replay_.park(job_id));
}

std::vector<NodeEvent> SimulatedSlurm::as_regular_jobs(const std::vector<int>& nodes) {
  std::vector<NodeEvent> events;
  std::uniform_int_distribution<std::size_t> size_draw(0, kJobSizes.size() - 1);
  for (std::size_t next = 0; next < nodes.size();) {
    const std::size_t size =
        std::min(static_cast<std::size_t>(kJobSizes[size_draw(random_)]), nodes.size() - next);
    const std::uint32_t job_id = next_regular_id_++;
    for (std::size_t i = next; i < next + size; ++i) {
      events.push_back({job_id, replay_.node_name(nodes[i])});
    }
    next += size;
  }
  return events;
}

std::vector<NodeEvent> SimulatedSlurm::end_regular_jobs(int nodes) {
  const std::lock_guard lock(mutex_);
  catch_up();
  std::vector<int> busy;
  for (int i = 0; i < replay_.node_count(); ++i) {
    if (!replay_.is_hole(i)) busy.push_back(i);
  }
  std::shuffle(busy.begin(), busy.end(), random_);
  busy.resize(std::min(busy.size(), static_cast<std::size_t>(std::max(nodes, 0))));
  for (const int node : busy) replay_.free_node(node, replay_.time() + kPlannedStartAheadS);
  ++version_;
  return as_regular_jobs(busy);
}

std::vector<NodeEvent> SimulatedSlurm::start_regular_jobs(int nodes) {
  const std::lock_guard lock(mutex_);
  catch_up();
  std::vector<int> idle;
  for (int i = 0; i < replay_.node_count(); ++i) {
    if (replay_.idle(i)) idle.push_back(i);
  }
  std::shuffle(idle.begin(), idle.end(), random_);
  idle.resize(std::min(idle.size(), static_cast<std::size_t>(std::max(nodes, 0))));
  for (const int node : idle) replay_.take_node(node);
  ++version_;
  return as_regular_jobs(idle);
}

std::vector<ElasticJobSpec> SimulatedSlurm::elastic_jobs() const {
  const std::lock_guard lock(mutex_);
  return elastic_;
}

std::set<std::string> SimulatedSlurm::idle_nodes() const {
  const std::lock_guard lock(mutex_);
  std::set<std::string> idle;
  for (int i = 0; i < replay_.node_count(); ++i) {
    if (replay_.idle(i)) idle.insert(replay_.node_name(i));
  }
  return idle;
}

std::uint64_t SimulatedSlurm::version() const {
  const std::lock_guard lock(mutex_);
  return version_;
}

std::uint64_t SimulatedSlurm::version_polled() const {
  const std::lock_guard lock(mutex_);
  return version_polled_;
}

SlurmCalls SimulatedSlurm::calls() const {
  const std::lock_guard lock(mutex_);
  return calls_;
}

}  // namespace gaptrain::bench
