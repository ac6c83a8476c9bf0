#include "simulated_slurm.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <ctime>
#include <utility>

#include "core/parking.hpp"

namespace gaptrain::bench {

namespace {

using core::ActionResult;
using core::Job;
using core::JobState;
using core::NodeState;

constexpr uid_t kSlurmUser = 0;  // slurmctld runs as root here: root's events are accepted
constexpr std::uint32_t kRegularUid = 1000;
constexpr std::uint32_t kTrainerUid = 2000;
constexpr std::uint32_t kTimeLimitMinutes = 60;
constexpr std::int64_t kPlannedStartAheadS = 3600;

// Regular job sizes, small ones the most common as on a real machine.
constexpr std::array<int, 11> kJobSizes = {1, 1, 1, 2, 2, 4, 8, 16, 32, 64, 128};

// A job of the regular workload's user in partition `regular`; the caller sets the rest.
Job regular_job(std::uint32_t id, std::string name, JobState state) {
  Job job;
  job.id = id;
  job.name = std::move(name);
  job.user_id = kRegularUid;
  job.group_id = kRegularUid;
  job.user = "alice";
  job.partition = "regular";
  job.state = state;
  return job;
}

std::string node_name(int index) {
  std::array<char, 16> name{};
  std::snprintf(name.data(), name.size(), "n%05d", index + 1);
  return name.data();
}

}  // namespace

SimulatedSlurm::SimulatedSlurm(const ClusterShape& shape) : random_(shape.seed) {
  const std::int64_t now = wall();
  core::Partition regular{"regular", {}};
  for (int i = 0; i < shape.nodes; ++i) {
    nodes_.push_back({node_name(i), NodeState::idle, now - 3600});
    node_index_[nodes_.back().name] = nodes_.size() - 1;
    regular.nodes.push_back(nodes_.back().name);
  }
  partitions_ = {regular, {"elastic", regular.nodes}};

  std::size_t next_node = 0;
  for (int e = 0; e < shape.elastic_jobs && next_node < nodes_.size(); ++e) {
    Job job;
    job.id = next_job_id_++;
    job.name = "train-" + std::to_string(e);
    job.user_id = kTrainerUid;
    job.group_id = kTrainerUid;
    job.user = "trainer";
    job.partition = "elastic";
    job.state = JobState::running;
    job.nodes = {nodes_[next_node++].name};
    job.batch_host = job.nodes.front();
    job.start_time = now - 600;
    job.time_limit_minutes = kTimeLimitMinutes;
    job.min_nodes = 1;
    job.max_nodes = static_cast<std::uint32_t>(shape.elastic_max_nodes);
    elastic_.push_back({job.id, job.user, job.batch_host, shape.elastic_max_nodes});
    add_job(std::move(job));
  }

  std::uniform_int_distribution<std::size_t> size_draw(0, kJobSizes.size() - 1);
  while (next_node < nodes_.size()) {
    const auto size = std::min(static_cast<std::size_t>(kJobSizes[size_draw(random_)]),
                               nodes_.size() - next_node);
    Job job = regular_job(next_job_id_++, "regular", JobState::running);
    for (std::size_t i = 0; i < size; ++i) job.nodes.push_back(nodes_[next_node++].name);
    job.batch_host = job.nodes.front();
    job.start_time = now - 60;
    job.end_time = now + kTimeLimitMinutes * 60;
    job.time_limit_minutes = kTimeLimitMinutes;
    job.min_nodes = job.max_nodes = static_cast<std::uint32_t>(size);
    running_regular_.push_back(job.id);
    add_job(std::move(job));
  }

  // Pending jobs backfill planned an hour ahead on the nodes of running ones: the holes those
  // nodes become when their jobs end early have a predicted end.
  for (int p = 0; p < shape.pending_jobs && !running_regular_.empty(); ++p) {
    std::uniform_int_distribution<std::size_t> pick(0, running_regular_.size() - 1);
    const Job& planned_on = jobs_.at(running_regular_[pick(random_)]);
    Job job = regular_job(next_job_id_++, "waiting", JobState::pending);
    job.start_time = now + kPlannedStartAheadS;
    job.sched_nodes = planned_on.nodes;
    job.time_limit_minutes = kTimeLimitMinutes;
    job.min_nodes = job.max_nodes = static_cast<std::uint32_t>(planned_on.nodes.size());
    job.priority = 100;
    job.reason = core::PendingReason::other;  // e.g. a dependency: free nodes would not start it
    jobs_.emplace(job.id, std::move(job));
  }
}

std::int64_t SimulatedSlurm::wall() const {
  return static_cast<std::int64_t>(std::time(nullptr));
}

Job& SimulatedSlurm::add_job(Job job) {
  if (holds_nodes(job)) {
    for (const std::string& node : job.nodes) {
      nodes_[node_index_.at(node)].state = NodeState::allocated;
    }
  }
  const std::uint32_t id = job.id;
  return jobs_.insert_or_assign(id, std::move(job)).first->second;
}

void SimulatedSlurm::free_nodes(const std::vector<std::string>& nodes) {
  const std::int64_t now = wall();
  for (const std::string& node : nodes) {
    core::Node& n = nodes_[node_index_.at(node)];
    n.state = NodeState::idle;
    n.last_busy = now;
  }
}

ActionResult SimulatedSlurm::refuse(std::string why) {
  ++calls_.refused;
  return {false, std::move(why)};
}

SimulatedSlurm::Result SimulatedSlurm::poll(core::Snapshot& snapshot, std::int64_t now,
                                            bool /*full*/) {
  const std::lock_guard lock(mutex_);
  ++calls_.polls;
  core::Snapshot fresh;
  fresh.taken_at = now;
  fresh.nodes = nodes_;
  fresh.jobs.reserve(jobs_.size());
  for (const auto& [id, job] : jobs_) fresh.jobs.push_back(job);
  fresh.partitions = partitions_;
  snapshot = std::move(fresh);
  version_polled_ = version_;
  return {true, {}};
}

// A simulated slurmctld of the release gaptraind was built for, with the default scheduler.
SimulatedSlurm::Result SimulatedSlurm::load_config(Config& config) {
  config = {};
  config.slurm_user = kSlurmUser;
  return {true, {}};
}

ActionResult SimulatedSlurm::shrink(const core::ShrinkRequest& request) {
  const std::lock_guard lock(mutex_);
  ++calls_.shrinks;
  if (const std::string why = core::shrink_refusal(request); !why.empty()) return refuse(why);
  const auto it = jobs_.find(request.job_id);
  if (it == jobs_.end() || it->second.state != JobState::running) return refuse("job not running");
  Job& job = it->second;
  std::vector<std::string> freed;
  for (const std::string& node : job.nodes) {
    if (std::find(request.keep_nodes.begin(), request.keep_nodes.end(), node) ==
        request.keep_nodes.end()) {
      freed.push_back(node);
    }
  }
  for (const std::string& node : request.keep_nodes) {
    if (std::find(job.nodes.begin(), job.nodes.end(), node) == job.nodes.end()) {
      return refuse("keep_nodes names a node the job does not hold: " + node);
    }
  }
  job.nodes = request.keep_nodes;
  free_nodes(freed);
  return {true, {}};
}

core::GrowResult SimulatedSlurm::grow(const core::GrowRequest& request) {
  const std::lock_guard lock(mutex_);
  ++calls_.grows;
  for (const std::string& node : request.add_nodes) {
    const auto it = node_index_.find(node);
    if (it == node_index_.end() || nodes_[it->second].state != NodeState::idle) {
      ++calls_.refused;
      return {false, "node " + node + " is not idle", {}};
    }
  }
  core::GrowResult result{true, {}, {}};
  for (const std::string& node : request.add_nodes) {
    Job satellite;
    satellite.id = next_job_id_++;
    satellite.name = core::satellite_name(request.job_id);
    satellite.user_id = request.user_id;
    satellite.group_id = request.group_id;
    satellite.user = "trainer";
    satellite.partition = request.partition;
    satellite.state = JobState::running;
    satellite.nodes = {node};
    satellite.batch_host = node;
    satellite.start_time = wall();
    satellite.time_limit_minutes = request.time_limit_minutes;
    result.satellites[node] = satellite.id;
    add_job(std::move(satellite));
  }
  calls_.grown_nodes += request.add_nodes.size();
  return result;
}

ActionResult SimulatedSlurm::release(const std::vector<std::uint32_t>& satellite_ids) {
  const std::lock_guard lock(mutex_);
  ++calls_.releases;
  bool all_found = true;
  for (const std::uint32_t id : satellite_ids) {
    const auto it = jobs_.find(id);
    if (it == jobs_.end()) {
      all_found = false;
      continue;
    }
    free_nodes(it->second.nodes);
    jobs_.erase(it);
  }
  if (!all_found) return refuse("a satellite had ended already");
  return {true, {}};
}

ActionResult SimulatedSlurm::set_time_limit(std::uint32_t job_id, std::uint32_t minutes) {
  const std::lock_guard lock(mutex_);
  ++calls_.time_limits;
  const auto it = jobs_.find(job_id);
  if (it == jobs_.end()) return refuse("no such job");
  it->second.time_limit_minutes = minutes;
  return {true, {}};
}

ActionResult SimulatedSlurm::admit(const core::AdmitRequest& request) {
  const std::lock_guard lock(mutex_);
  ++calls_.admits;
  const auto it = jobs_.find(request.job_id);
  if (it == jobs_.end() || it->second.state != JobState::pending) return refuse("not pending");
  for (const std::string& node : request.nodes) {
    const auto n = node_index_.find(node);
    if (n == node_index_.end() || nodes_[n->second].state != NodeState::idle) {
      return refuse("node " + node + " is not idle");
    }
  }
  Job job = it->second;
  job.state = JobState::running;
  job.held = false;
  job.nodes = request.nodes;
  job.batch_host = request.nodes.front();
  job.start_time = wall();
  job.time_limit_minutes = request.time_limit_minutes;
  add_job(std::move(job));
  return {true, {}};
}

ActionResult SimulatedSlurm::requeue(std::uint32_t job_id) {
  const std::lock_guard lock(mutex_);
  ++calls_.requeues;
  const auto it = jobs_.find(job_id);
  if (it == jobs_.end() || !holds_nodes(it->second)) return refuse("job not running");
  free_nodes(it->second.nodes);
  it->second.nodes.clear();
  // Parked, as LibslurmActions::requeue leaves it: pending, not held, a begin time far ahead.
  it->second.state = JobState::pending;
  it->second.held = false;
  it->second.eligible_time = wall() + core::kParkForS;
  it->second.requeued = true;
  return {true, {}};
}

ActionResult SimulatedSlurm::park(std::uint32_t job_id) {
  const std::lock_guard lock(mutex_);
  ++calls_.parks;
  const auto it = jobs_.find(job_id);
  if (it == jobs_.end() || it->second.state != JobState::pending) return refuse("not pending");
  it->second.held = false;
  it->second.eligible_time = wall() + core::kParkForS;
  return {true, {}};
}

std::vector<NodeEvent> SimulatedSlurm::end_regular_jobs(int nodes) {
  const std::lock_guard lock(mutex_);
  std::vector<NodeEvent> events;
  while (std::cmp_less(events.size(), nodes) && !running_regular_.empty()) {
    std::uniform_int_distribution<std::size_t> pick(0, running_regular_.size() - 1);
    const std::size_t i = pick(random_);
    const std::uint32_t id = running_regular_[i];
    running_regular_[i] = running_regular_.back();
    running_regular_.pop_back();
    const auto it = jobs_.find(id);
    if (it == jobs_.end()) continue;
    for (const std::string& node : it->second.nodes) events.push_back({id, node});
    free_nodes(it->second.nodes);
    jobs_.erase(it);
  }
  ++version_;
  return events;
}

std::vector<NodeEvent> SimulatedSlurm::start_regular_jobs(int nodes) {
  const std::lock_guard lock(mutex_);
  std::vector<std::string> idle;
  for (const core::Node& node : nodes_) {
    if (node.state == NodeState::idle) idle.push_back(node.name);
  }
  std::shuffle(idle.begin(), idle.end(), random_);
  idle.resize(std::min(idle.size(), static_cast<std::size_t>(std::max(nodes, 0))));
  std::vector<NodeEvent> events;
  std::uniform_int_distribution<std::size_t> size_draw(0, kJobSizes.size() - 1);
  const std::int64_t now = wall();
  for (std::size_t next = 0; next < idle.size();) {
    const auto size =
        std::min(static_cast<std::size_t>(kJobSizes[size_draw(random_)]), idle.size() - next);
    Job job = regular_job(next_job_id_++, "regular", JobState::running);
    job.nodes.assign(idle.begin() + static_cast<std::ptrdiff_t>(next),
                     idle.begin() + static_cast<std::ptrdiff_t>(next + size));
    next += size;
    job.batch_host = job.nodes.front();
    job.start_time = now;
    job.end_time = now + kTimeLimitMinutes * 60;
    job.time_limit_minutes = kTimeLimitMinutes;
    job.min_nodes = job.max_nodes = static_cast<std::uint32_t>(size);
    for (const std::string& node : job.nodes) events.push_back({job.id, node});
    running_regular_.push_back(job.id);
    add_job(std::move(job));
  }
  ++version_;
  return events;
}

std::vector<ElasticJobSpec> SimulatedSlurm::elastic_jobs() const {
  const std::lock_guard lock(mutex_);
  return elastic_;
}

std::set<std::string> SimulatedSlurm::idle_nodes() const {
  const std::lock_guard lock(mutex_);
  std::set<std::string> idle;
  for (const core::Node& node : nodes_) {
    if (node.state == NodeState::idle) idle.insert(node.name);
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
