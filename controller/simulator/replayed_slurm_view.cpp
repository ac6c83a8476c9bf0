// What the replayed Slurm shows (replayed_slurm.hpp): its poll's snapshot, the jobs in it, and the
// configuration it reports.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "simulator/replayed_slurm.hpp"

namespace gaptrain::sim {

namespace {

using core::Job;
using core::JobState;
using core::NodeState;

constexpr std::uint32_t kRegularUid = 1000;
constexpr std::uint32_t kTrainerUid = 2000;
constexpr const char* kRegularPartition = "regular";
// The regular workload's pending jobs keep their ids from one poll to the next, as Slurm's do
// (gaptraind remembers which jobs it serves by id): the plan's job for the hole end at second
// t of the replay is kPlanIds + t, the job waiting for node i is kWaitingIds + i. The elastic
// jobs and satellites count up from 1.
constexpr std::uint32_t kPlanIds = 2'000'000'000U;
constexpr std::uint32_t kWaitingIds = 4'000'000'000U;

Job regular_pending(std::uint32_t id, std::string partition) {
  Job job;
  job.id = id;
  job.name = "regular";
  job.user_id = kRegularUid;
  job.group_id = kRegularUid;
  job.user = "regular";
  job.partition = std::move(partition);
  job.state = JobState::pending;
  job.reason = core::PendingReason::resources;
  return job;
}

// The partition of a regular job that can run only on `node`.
std::string only_partition(const std::string& node) {
  return "only:" + node;
}

// The partition of a regular job that can run on any node of `type` ("" untyped).
std::string type_partition(const std::string& type) {
  return "type:" + type;
}

}  // namespace

Job ReplayedSlurm::job_view(std::uint32_t id, const JobRecord& elastic) const {
  Job job;
  job.id = id;
  job.name = elastic.name;
  job.user_id = kTrainerUid;
  job.group_id = kTrainerUid;
  job.user = "trainer";
  job.partition = elastic.at_home ? setup_.home_partition : elastic_partition_;
  job.min_nodes = static_cast<std::uint32_t>(elastic.min_nodes);
  job.max_nodes = static_cast<std::uint32_t>(elastic.max_nodes);
  job.admin_comment = elastic.admin_comment;
  job.priority = 1;
  if (elastic.phase == Phase::ended) {
    job.state = JobState::finished;
    job.start_time = elastic.start_time;
    job.end_time = elastic.end_time;
    return job;
  }
  if (elastic.phase == Phase::held) {
    job.state = JobState::pending;
    job.held = true;
    job.priority = 0;
    job.requeued = elastic.requeued;
    job.reason = core::PendingReason::other;
    return job;
  }
  job.state = JobState::running;
  if (elastic.at_home) job.nodes.push_back(home_node_);  // its batch script's, shared
  for (const int node : elastic.nodes) job.nodes.push_back(node_name(node));
  job.batch_host = job.nodes.empty() ? std::string() : job.nodes.front();
  job.start_time = elastic.start_time;
  job.time_limit_minutes = elastic.time_limit_minutes;
  job.end_time = elastic.time_limit_minutes == 0
                     ? 0
                     : elastic.start_time + std::int64_t{60} * elastic.time_limit_minutes;
  return job;
}

std::optional<Job> ReplayedSlurm::job(std::uint32_t job_id) const {
  const auto it = jobs_.find(job_id);
  if (it == jobs_.end() || it->second.phase == Phase::ended) return std::nullopt;
  return job_view(job_id, it->second);
}

bool ReplayedSlurm::running(std::uint32_t job_id) const {
  const auto it = jobs_.find(job_id);
  return it != jobs_.end() && it->second.phase == Phase::running;
}

std::vector<int> ReplayedSlurm::nodes_of(std::uint32_t job_id) const {
  const auto it = jobs_.find(job_id);
  if (it == jobs_.end() || it->second.phase != Phase::running) return {};
  std::vector<int> nodes = it->second.nodes;
  for (const auto& [id, satellite] : satellites_)
    if (satellite.owner == job_id && !satellite.preempted) nodes.push_back(satellite.node);
  return nodes;
}

core::SlurmQueries::Result ReplayedSlurm::poll(core::Snapshot& snapshot, std::int64_t now,
                                               bool /*full*/) {
  expire();
  snapshot.taken_at = now;
  snapshot.nodes.clear();
  snapshot.jobs.clear();
  snapshot.reservations.clear();
  snapshot.partitions.clear();
  core::Partition all{kRegularPartition, names_};
  snapshot.partitions.push_back(all);
  all.name = elastic_partition_;
  snapshot.partitions.push_back(std::move(all));

  // The plan: one pending job per predicted end, on the nodes whose hole ends then.
  std::map<std::int64_t, std::vector<std::string>> planned;
  snapshot.nodes.reserve(nodes_.size() + 1);
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    const Node& n = nodes_[i];
    core::Node node;
    node.name = names_[i];
    if (report_types_ && !types_[i].empty()) {
      // As a feature, as Slurm reports it (assign_node_types reads it when gaptraind.json names
      // the types), and as the type, as a gaptraind told the types sees it.
      node.features = types_[i];
      node.type = types_[i];
      node.type_source = core::NodeTypeSource::feature;
    }
    const bool plan_known = n.hole && n.predicted_end_s != kUnknownEnd;
    if (!n.hole || n.holder != 0 || n.wanted) {
      node.state = NodeState::allocated;
    } else {
      node.state = plan_known ? NodeState::planned : NodeState::idle;
    }
    if (n.hole) node.last_busy = wall_at(n.idle_since_s);
    if (plan_known) {
      planned[wall_at(n.predicted_end_s)].push_back(node.name);
    }
    snapshot.nodes.push_back(std::move(node));
  }
  // The home node, after the trace's: shared by the jobs at home, never a hole.
  if (!home_node_.empty()) {
    snapshot.partitions.push_back({setup_.home_partition, {home_node_}});
    core::Node home;
    home.name = home_node_;
    home.state = std::any_of(jobs_.begin(), jobs_.end(),
                             [](const auto& job) {
                               return job.second.at_home && job.second.phase == Phase::running;
                             })
                     ? NodeState::allocated
                     : NodeState::idle;
    snapshot.nodes.push_back(std::move(home));
  }
  for (auto& [start, nodes] : planned) {
    Job job =
        regular_pending(kPlanIds + static_cast<std::uint32_t>(start - epoch_), kRegularPartition);
    job.start_time = start;
    job.sched_nodes = std::move(nodes);
    // It also waits for nodes the regular workload holds until then: more nodes than are
    // free or elastic now, so nothing gaptrain gives back would start it sooner.
    job.min_nodes = static_cast<std::uint32_t>(nodes_.size()) + 1;
    job.priority = 1;
    snapshot.jobs.push_back(std::move(job));
  }
  std::set<std::string> typed_partitions;  // added to the snapshot already
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    if (!nodes_[i].wanted) continue;
    // Placement::slurm: any node of its type will do (no idle one is left, or it would run
    // there): on a cluster with types, a partition of that type's nodes says so, as its
    // --constraint would.
    const bool pinned = placement_ == Placement::trace;
    std::string partition = kRegularPartition;
    if (pinned) {
      partition = only_partition(names_[i]);
      snapshot.partitions.push_back({partition, {names_[i]}});
    } else if (!nodes_of_type_.empty()) {
      partition = type_partition(types_[i]);
      if (typed_partitions.insert(partition).second)
        snapshot.partitions.push_back({partition, nodes_of_type_.at(types_[i])});
    }
    Job job = regular_pending(kWaitingIds + static_cast<std::uint32_t>(i), partition);
    job.start_time = now;
    if (pinned) job.sched_nodes = {names_[i]};
    job.min_nodes = 1;
    job.priority = 2;  // it was due first
    snapshot.jobs.push_back(std::move(job));
  }
  for (const auto& [id, elastic] : jobs_) snapshot.jobs.push_back(job_view(id, elastic));
  for (const auto& [id, satellite] : satellites_)
    snapshot.jobs.push_back(satellite_view(id, satellite));
  return {true, {}};
}

Job ReplayedSlurm::satellite_view(std::uint32_t id, const Satellite& satellite) const {
  Job job;
  job.id = id;
  job.name = core::satellite_name(satellite.owner);
  job.user_id = kTrainerUid;
  job.group_id = kTrainerUid;
  job.user = "trainer";
  job.partition = satellite.partition;
  job.qos = satellite.qos;
  job.state = satellite.preempted ? JobState::finished : JobState::running;
  job.preempted = satellite.preempted;
  job.nodes = {node_name(satellite.node)};
  job.batch_host = job.nodes.front();
  job.start_time = satellite.start_time;
  job.time_limit_minutes = satellite.time_limit_minutes;
  job.end_time = satellite.preempted ? satellite.end_time
                 : satellite.time_limit_minutes == 0
                     ? 0
                     : satellite.start_time + std::int64_t{60} * satellite.time_limit_minutes;
  job.min_nodes = job.max_nodes = 1;
  return job;
}

core::SlurmQueries::Result ReplayedSlurm::load_config(Config& config) {
  config = Config{};
  config.private_data = core::PrivateData{};
  config.controller.slurmctld_release = "replay";
  config.controller.built_release = "replay";
  return {true, {}};
}

}  // namespace gaptrain::sim
