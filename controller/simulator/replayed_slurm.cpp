#include "simulator/replayed_slurm.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

namespace gaptrain::sim {

namespace {

using daemon::ActionResult;
using daemon::Job;
using daemon::JobState;
using daemon::NodeState;

constexpr std::uint32_t kRegularUid = 1000;
constexpr std::uint32_t kTrainerUid = 2000;
constexpr const char* kRegularPartition = "regular";
// The regular workload's pending jobs keep their ids from one poll to the next, as Slurm's do
// (gaptraind remembers which jobs it serves by id): the plan's job for the hole end at second
// t of the replay is kPlanIds + t, the job waiting for node i is kWaitingIds + i. The elastic
// jobs and satellites count up from 1.
// How long slurmctld lists an ended job (MinJobAge's default).
constexpr std::int64_t kMinJobAgeS = 300;

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
  job.reason = daemon::PendingReason::resources;
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

ReplayedSlurm::ReplayedSlurm(const HoleTrace& trace, int node_count, std::string elastic_partition,
                             std::int64_t epoch, Placement placement, bool report_types)
    : elastic_partition_(std::move(elastic_partition)),
      epoch_(epoch),
      placement_(placement),
      report_types_(report_types) {
  const int count = std::min(node_count, static_cast<int>(trace.node_names.size()));
  names_.assign(trace.node_names.begin(), trace.node_names.begin() + count);
  types_.resize(names_.size());
  if (!trace.node_types.empty()) {
    std::copy_n(trace.node_types.begin(), count, types_.begin());
    for (std::size_t i = 0; i < names_.size(); ++i) nodes_of_type_[types_[i]].push_back(names_[i]);
  }
  nodes_.resize(names_.size());
  placed_.resize(names_.size());
  trace_of_.resize(names_.size());
  for (int i = 0; i < count; ++i) {
    index_.emplace(names_[static_cast<std::size_t>(i)], i);
    placed_[static_cast<std::size_t>(i)] = trace_of_[static_cast<std::size_t>(i)] = i;
  }
}

std::int64_t ReplayedSlurm::wall() const {
  return wall_at(now_s_);
}

bool ReplayedSlurm::idle(int node) const {
  const Node& n = nodes_[static_cast<std::size_t>(node)];
  return n.hole && n.holder == 0 && !n.wanted;
}

void ReplayedSlurm::hold(int node, std::uint32_t holder) {
  Node& n = at(node);
  n.holder = holder;
  if (n.hole) ++held_hole_nodes_;
}

void ReplayedSlurm::end_wait(Node& n) {
  n.wanted = false;
  --waiting_;
  regular_waits_.push_back(now_s_ - n.wanted_since_s);
}

void ReplayedSlurm::let_go(int node) {
  Node& n = at(node);
  if (n.holder == 0) return;
  n.holder = 0;
  if (n.hole) --held_hole_nodes_;
  if (n.wanted) {
    end_wait(n);  // the regular job waiting for it starts now
  } else if (n.hole) {
    serve_waiting(node);
  }
}

void ReplayedSlurm::swap_places(int a, int b) {
  if (a == b) return;
  Node& x = at(a);
  Node& y = at(b);
  const auto count = [&](const Node& n, int sign) {
    hole_nodes_ += sign * static_cast<int>(n.hole);
    held_hole_nodes_ += sign * static_cast<int>(n.hole && n.holder != 0);
    waiting_ += sign * static_cast<int>(n.wanted);
  };
  count(x, -1);
  count(y, -1);
  std::swap(x.hole, y.hole);
  std::swap(x.predicted_end_s, y.predicted_end_s);
  std::swap(x.wanted, y.wanted);
  std::swap(x.wanted_since_s, y.wanted_since_s);
  count(x, +1);
  count(y, +1);
  const auto ua = static_cast<std::size_t>(a);
  const auto ub = static_cast<std::size_t>(b);
  std::swap(trace_of_[ua], trace_of_[ub]);
  placed_[static_cast<std::size_t>(trace_of_[ua])] = a;
  placed_[static_cast<std::size_t>(trace_of_[ub])] = b;
}

int ReplayedSlurm::longest_waiting(const std::string& type) const {
  int longest = -1;
  for (int i = 0; i < node_count(); ++i) {
    const Node& n = nodes_[static_cast<std::size_t>(i)];
    if (n.wanted && node_type(i) == type &&
        (longest < 0 ||
         n.wanted_since_s < nodes_[static_cast<std::size_t>(longest)].wanted_since_s))
      longest = i;
  }
  return longest;
}

void ReplayedSlurm::serve_waiting(int node) {
  if (placement_ != Placement::slurm || waiting_ == 0 || !idle(node)) return;
  const int waiting = longest_waiting(node_type(node));
  if (waiting < 0) return;
  swap_places(node, waiting);
  end_wait(at(node));
}

double ReplayedSlurm::free_node(int trace_node, double predicted_end_s) {
  const int node = placed(trace_node);
  Node& n = at(node);
  const double before = n.predicted_end_s;
  n.predicted_end_s = predicted_end_s;
  if (n.hole) return before;
  if (n.wanted) {
    // The regular job that waited for it is gone from the trace (it ran, as far as the trace
    // knows): the wait ends here, and the node is a hole again, still held.
    end_wait(n);
  }
  n.hole = true;
  n.idle_since_s = now_s_;
  ++hole_nodes_;
  if (n.holder != 0) ++held_hole_nodes_;
  serve_waiting(node);
  return kUnknownEnd;
}

bool ReplayedSlurm::take_node(int trace_node) {
  int node = placed(trace_node);
  if (placement_ == Placement::slurm && at(node).hole && at(node).holder != 0) {
    for (int other = 0; other < node_count(); ++other) {
      if (!idle(other) || node_type(other) != node_type(node)) continue;
      swap_places(node, other);  // Slurm starts the job on the first idle node of its type
      node = other;
      break;
    }
  }
  Node& n = at(node);
  if (!n.hole) return false;
  n.hole = false;
  n.predicted_end_s = kUnknownEnd;
  --hole_nodes_;
  if (n.holder != 0) {
    --held_hole_nodes_;
    n.wanted = true;
    n.wanted_since_s = now_s_;
    ++waiting_;
  }
  return true;
}

std::uint32_t ReplayedSlurm::submit_elastic(const std::string& name, int min_nodes, int max_nodes) {
  const std::uint32_t id = next_id_++;
  ElasticJob job;
  job.name = name;
  job.min_nodes = min_nodes;
  job.max_nodes = max_nodes;
  jobs_.emplace(id, std::move(job));
  return id;
}

void ReplayedSlurm::end_elastic(std::uint32_t job_id) {
  const auto it = jobs_.find(job_id);
  if (it == jobs_.end()) return;
  for (const int node : it->second.nodes) let_go(node);
  it->second.nodes.clear();
  it->second.phase = Phase::ended;
  it->second.end_time = wall();
}

void ReplayedSlurm::expire() {
  std::erase_if(jobs_, [&](const auto& entry) {
    return entry.second.phase == Phase::ended && entry.second.end_time + kMinJobAgeS <= wall();
  });
  for (auto it = satellites_.begin(); it != satellites_.end();) {
    const Satellite& satellite = it->second;
    const bool limit_passed =
        satellite.time_limit_minutes != 0 &&
        satellite.start_time + std::int64_t{60} * satellite.time_limit_minutes <= wall();
    if (limit_passed && !running(satellite.owner)) {
      let_go(satellite.node);
      it = satellites_.erase(it);
    } else {
      ++it;
    }
  }
}

std::optional<int> ReplayedSlurm::index_of(const std::string& name) const {
  const auto it = index_.find(name);
  if (it == index_.end()) return std::nullopt;
  return it->second;
}

Job ReplayedSlurm::job_view(std::uint32_t id, const ElasticJob& elastic) const {
  Job job;
  job.id = id;
  job.name = elastic.name;
  job.user_id = kTrainerUid;
  job.group_id = kTrainerUid;
  job.user = "trainer";
  job.partition = elastic_partition_;
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
    job.reason = daemon::PendingReason::other;
    return job;
  }
  job.state = JobState::running;
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
    if (satellite.owner == job_id) nodes.push_back(satellite.node);
  return nodes;
}

daemon::SlurmQueries::Result ReplayedSlurm::poll(daemon::Snapshot& snapshot, std::int64_t now,
                                                 bool /*full*/) {
  expire();
  snapshot.taken_at = now;
  snapshot.nodes.clear();
  snapshot.jobs.clear();
  snapshot.reservations.clear();
  snapshot.partitions.clear();
  daemon::Partition all{kRegularPartition, names_};
  snapshot.partitions.push_back(all);
  all.name = elastic_partition_;
  snapshot.partitions.push_back(std::move(all));

  // The plan: one pending job per predicted end, on the nodes whose hole ends then.
  std::map<std::int64_t, std::vector<std::string>> planned;
  snapshot.nodes.reserve(nodes_.size());
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    const Node& n = nodes_[i];
    daemon::Node node;
    node.name = names_[i];
    if (report_types_ && !types_[i].empty()) {
      node.type = types_[i];
      node.type_source = daemon::NodeTypeSource::feature;
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
  for (const auto& [id, satellite] : satellites_) {
    Job job;
    job.id = id;
    job.name = daemon::satellite_name(satellite.owner);
    job.user_id = kTrainerUid;
    job.group_id = kTrainerUid;
    job.user = "trainer";
    job.partition = elastic_partition_;
    job.state = JobState::running;
    job.nodes = {node_name(satellite.node)};
    job.batch_host = job.nodes.front();
    job.start_time = satellite.start_time;
    job.time_limit_minutes = satellite.time_limit_minutes;
    job.end_time = satellite.time_limit_minutes == 0
                       ? 0
                       : satellite.start_time + std::int64_t{60} * satellite.time_limit_minutes;
    job.min_nodes = job.max_nodes = 1;
    snapshot.jobs.push_back(std::move(job));
  }
  return {true, {}};
}

daemon::SlurmQueries::Result ReplayedSlurm::load_config(Config& config) {
  config = Config{};
  config.private_data = daemon::PrivateData{};
  config.controller.slurmctld_release = "replay";
  config.controller.built_release = "replay";
  return {true, {}};
}

ActionResult ReplayedSlurm::refuse(const std::string& what) const {
  return {false, what};
}

ActionResult ReplayedSlurm::shrink(const daemon::ShrinkRequest& request) {
  if (const std::string why = daemon::shrink_refusal(request); !why.empty()) return refuse(why);
  const auto it = jobs_.find(request.job_id);
  if (it == jobs_.end() || it->second.phase != Phase::running)
    return refuse("shrink: job " + std::to_string(request.job_id) + " does not run");
  std::vector<int> keep;
  for (const std::string& name : request.keep_nodes) {
    const std::optional<int> node = index_of(name);
    if (!node || std::find(it->second.nodes.begin(), it->second.nodes.end(), *node) ==
                     it->second.nodes.end())
      return refuse("shrink: node " + name + " is not job " + std::to_string(request.job_id) +
                    "'s");
    keep.push_back(*node);
  }
  for (const int node : it->second.nodes)
    if (std::find(keep.begin(), keep.end(), node) == keep.end()) let_go(node);
  it->second.nodes = std::move(keep);
  return {true, {}};
}

daemon::GrowResult ReplayedSlurm::grow(const daemon::GrowRequest& request) {
  daemon::GrowResult result;
  if (!running(request.job_id)) {
    result.error = "grow: job " + std::to_string(request.job_id) + " does not run";
    return result;
  }
  std::vector<int> nodes;
  for (const std::string& name : request.add_nodes) {
    const std::optional<int> node = index_of(name);
    if (!node || !idle(*node)) {
      result.error = "grow: node " + name + " is not idle";
      return result;  // all or nothing, as the real grow
    }
    // A satellite asking for a type (--constraint) fits only a node of it, as in slurmctld.
    if (!request.constraint.empty() && node_type(*node) != request.constraint) {
      result.error = "grow: node " + name + " is not of type " + request.constraint;
      return result;
    }
    nodes.push_back(*node);
  }
  for (const int node : nodes) {
    const std::uint32_t id = next_id_++;
    satellites_.emplace(id, Satellite{request.job_id, node, wall(), request.time_limit_minutes});
    hold(node, id);
    result.satellites.emplace(node_name(node), id);
  }
  result.ok = true;
  return result;
}

ActionResult ReplayedSlurm::release(const std::vector<std::uint32_t>& satellite_ids) {
  for (const std::uint32_t id : satellite_ids) {
    const auto it = satellites_.find(id);
    if (it == satellites_.end()) continue;  // ended already, as scancel of an ended job
    let_go(it->second.node);
    satellites_.erase(it);
  }
  return {true, {}};
}

ActionResult ReplayedSlurm::set_time_limit(std::uint32_t job_id, std::uint32_t minutes) {
  if (const auto it = jobs_.find(job_id); it != jobs_.end()) {
    it->second.time_limit_minutes = minutes;
    return {true, {}};
  }
  if (const auto it = satellites_.find(job_id); it != satellites_.end()) {
    it->second.time_limit_minutes = minutes;
    return {true, {}};
  }
  return refuse("time limit: job " + std::to_string(job_id) + " is unknown");
}

ActionResult ReplayedSlurm::admit(const daemon::AdmitRequest& request) {
  const auto it = jobs_.find(request.job_id);
  if (it == jobs_.end() || it->second.phase != Phase::held)
    return refuse("admit: job " + std::to_string(request.job_id) + " is not held");
  if (!request.home_partition.empty())
    return refuse("admit: the replay does not model the home mode (home_partition) yet");
  std::vector<int> nodes;
  for (const std::string& name : request.nodes) {
    const std::optional<int> node = index_of(name);
    if (!node || !idle(*node)) return refuse("admit: node " + name + " is not idle");
    nodes.push_back(*node);
  }
  // As slurmctld: the job's node range becomes the nodes it is given (libslurm_actions.cpp).
  it->second.min_nodes = it->second.max_nodes = static_cast<int>(nodes.size());
  for (const int node : nodes) hold(node, request.job_id);
  it->second.phase = Phase::running;
  it->second.nodes = std::move(nodes);
  it->second.start_time = wall();
  it->second.time_limit_minutes = request.time_limit_minutes;
  it->second.admin_comment = request.admin_comment;
  return {true, {}};
}

ActionResult ReplayedSlurm::requeue(std::uint32_t job_id) {
  const auto it = jobs_.find(job_id);
  if (it == jobs_.end() || it->second.phase != Phase::running)
    return refuse("requeue: job " + std::to_string(job_id) + " does not run");
  for (const int node : it->second.nodes) let_go(node);
  it->second.nodes.clear();
  it->second.phase = Phase::held;
  it->second.requeued = true;
  it->second.start_time = 0;
  it->second.time_limit_minutes = 0;
  return {true, {}};
}

ActionResult ReplayedSlurm::park(std::uint32_t job_id) {
  const auto it = jobs_.find(job_id);
  if (it == jobs_.end()) return refuse("park: job " + std::to_string(job_id) + " is unknown");
  return {true, {}};  // held jobs are held; a running one is left to run, as Slurm does
}

}  // namespace gaptrain::sim
