#include "simulator/replayed_slurm.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

namespace gaptrain::sim {

namespace {

using core::ActionResult;

// How long slurmctld lists an ended job (MinJobAge's default).
constexpr std::int64_t kMinJobAgeS = 300;

}  // namespace

ReplayedSlurm::ReplayedSlurm(const HoleTrace& trace, int node_count, std::string elastic_partition,
                             std::int64_t epoch, Placement placement, bool report_types,
                             ElasticSetup setup)
    : elastic_partition_(std::move(elastic_partition)),
      setup_(std::move(setup)),
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
  if (!setup_.home_partition.empty()) {
    home_node_ = "home";
    while (index_.contains(home_node_)) home_node_ += "-";  // not a name the trace uses
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
    int other = 0;
    while (other < node_count() && !(idle(other) && node_type(other) == node_type(node))) ++other;
    // Slurm starts the job on the first idle node of its type; with none, it preempts a
    // satellite of that type rather than wait (it tries without preemption first).
    if (other == node_count() && !preemptable(node)) other = preemptable_of_type(node_type(node));
    if (other >= 0 && other < node_count()) {
      swap_places(node, other);
      node = other;
    }
  }
  Node& n = at(node);
  if (!n.hole) return false;
  n.hole = false;
  n.predicted_end_s = kUnknownEnd;
  --hole_nodes_;
  if (n.holder != 0) {
    --held_hole_nodes_;
    ++reclaims_;
    if (preemptable(node)) {
      preempt(node);
    } else {
      n.wanted = true;
      n.wanted_since_s = now_s_;
      ++waiting_;
    }
  }
  return true;
}

bool ReplayedSlurm::preemptable(int node) const {
  if (setup_.preemptable_qos.empty()) return false;
  const auto it = satellites_.find(nodes_[static_cast<std::size_t>(node)].holder);
  return it != satellites_.end() && it->second.qos == setup_.preemptable_qos;
}

int ReplayedSlurm::preemptable_of_type(const std::string& type) const {
  for (int i = 0; i < node_count(); ++i) {
    if (is_hole(i) && node_type(i) == type && preemptable(i)) return i;
  }
  return -1;
}

void ReplayedSlurm::preempt(int node) {
  Node& n = at(node);
  Satellite& satellite = satellites_.at(n.holder);
  satellite.preempted = true;
  satellite.end_time = wall();
  n.holder = 0;  // the regular job runs there now: it waited for nothing
  ++preemptions_;
  count_pause_of(satellite.owner);
}

void ReplayedSlurm::count_pause_of(std::uint32_t owner) {
  const auto it = jobs_.find(owner);
  if (it == jobs_.end() || !it->second.at_home || it->second.phase != Phase::running) return;
  if (nodes_of(owner).empty()) ++pauses_;
}

std::uint32_t ReplayedSlurm::submit_elastic(const std::string& name, int min_nodes, int max_nodes) {
  const std::uint32_t id = next_id_++;
  JobRecord job;
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
    if (satellite.preempted) {
      it = satellite.end_time + kMinJobAgeS <= wall() ? satellites_.erase(it) : std::next(it);
      continue;
    }
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

ActionResult ReplayedSlurm::refuse(const std::string& what) const {
  return {false, what};
}

ActionResult ReplayedSlurm::shrink(const core::ShrinkRequest& request) {
  if (const std::string why = core::shrink_refusal(request); !why.empty()) return refuse(why);
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

core::GrowResult ReplayedSlurm::grow(const core::GrowRequest& request) {
  core::GrowResult result;
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
    satellites_.emplace(id, Satellite{.owner = request.job_id,
                                      .node = node,
                                      .start_time = wall(),
                                      .time_limit_minutes = request.time_limit_minutes,
                                      .qos = request.qos,
                                      .partition = request.partition.empty() ? elastic_partition_
                                                                             : request.partition});
    hold(node, id);
    result.satellites.emplace(node_name(node), id);
  }
  result.ok = true;
  return result;
}

ActionResult ReplayedSlurm::release(const std::vector<std::uint32_t>& satellite_ids) {
  std::set<std::uint32_t> owners;
  for (const std::uint32_t id : satellite_ids) {
    const auto it = satellites_.find(id);
    // Ended already (gone, or preempted and listed until MinJobAge), as scancel of an ended job.
    if (it == satellites_.end() || it->second.preempted) continue;
    owners.insert(it->second.owner);
    let_go(it->second.node);
    satellites_.erase(it);
  }
  for (const std::uint32_t owner : owners) count_pause_of(owner);
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

ActionResult ReplayedSlurm::admit(const core::AdmitRequest& request) {
  const auto it = jobs_.find(request.job_id);
  if (it == jobs_.end() || it->second.phase != Phase::held)
    return refuse("admit: job " + std::to_string(request.job_id) + " is not held");
  if (!request.home_partition.empty()) return admit_home(it->second, request);
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
  it->second.at_home = false;
  return {true, {}};
}

ActionResult ReplayedSlurm::admit_home(JobRecord& job, const core::AdmitRequest& request) {
  if (request.home_partition != setup_.home_partition)
    return refuse("admit: partition " + request.home_partition + " does not exist" +
                  (setup_.home_partition.empty() ? "" : " (home: " + setup_.home_partition + ")"));
  // As slurmctld (libslurm_actions.cpp admit_home): one task on the home node, shared, at the
  // job's own limit; the nodes the request names are the holes it grows into once it runs.
  job.min_nodes = job.max_nodes = 1;
  job.phase = Phase::running;
  job.at_home = true;
  job.nodes.clear();
  job.start_time = wall();
  job.time_limit_minutes = request.time_limit_minutes;
  job.admin_comment = request.admin_comment;
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
  ++requeues_;
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
