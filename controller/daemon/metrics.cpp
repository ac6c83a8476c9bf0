#include "metrics.hpp"

#include <prometheus/exposer.h>
#include <prometheus/text_serializer.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

namespace gaptrain::daemon {

namespace {

using prometheus::BuildCounter;
using prometheus::BuildGauge;
using prometheus::BuildHistogram;

// Solves take milliseconds to the 1 s limit (solver.time_limit_s); reclaims half a second to
// the grace and a retry or two.
const prometheus::Histogram::BucketBoundaries kSolveBuckets{0.001, 0.003, 0.01, 0.03,
                                                            0.1,   0.3,   1.0,  3.0};
const prometheus::Histogram::BucketBoundaries kReclaimBuckets{0.1, 0.25, 0.5,  1.0,
                                                              2.0, 5.0,  10.0, 30.0};

// Threads answering scrapes, and how long a connection may take to send its request (ms).
constexpr int kScrapeThreads = 8;
constexpr int kRequestTimeoutMs = 3000;

void add_increase(prometheus::Counter& counter, std::uint64_t now, std::uint64_t& seen) {
  if (now > seen) counter.Increment(static_cast<double>(now - seen));
  seen = now;
}

// The holes in each partition Slurm lists; all of them under "" when it listed none.
std::map<std::string, std::size_t> holes_by_partition(const core::Snapshot& snapshot,
                                                      const std::vector<core::Hole>& holes) {
  std::map<std::string, std::size_t> counts;
  if (snapshot.partitions.empty()) {
    counts[""] = holes.size();
    return counts;
  }
  std::set<std::string> idle;
  for (const core::Hole& hole : holes) idle.insert(hole.node);
  for (const core::Partition& partition : snapshot.partitions) {
    std::size_t& count = counts[partition.name];
    for (const std::string& node : partition.nodes)
      if (idle.contains(node)) ++count;
  }
  return counts;
}

}  // namespace

Metrics::Metrics()
    : registry_(std::make_shared<prometheus::Registry>()),
      hole_nodes_(BuildGauge()
                      .Name("gaptrain_hole_nodes")
                      .Help("Idle nodes (holes) by partition")
                      .Register(*registry_)),
      elastic_nodes_(BuildGauge()
                         .Name("gaptrain_elastic_nodes")
                         .Help("Nodes held by managed elastic jobs, their satellites included")
                         .Register(*registry_)),
      node_seconds_(BuildCounter()
                        .Name("gaptrain_elastic_node_seconds_total")
                        .Help("Node-seconds held by managed elastic jobs, their satellites "
                              "included, by partition, user and account")
                        .Register(*registry_)),
      managed_jobs_(BuildGauge()
                        .Name("gaptrain_elastic_jobs_managed")
                        .Help("Elastic jobs registered with gaptraind and managed by it")
                        .Register(*registry_)
                        .Add({})),
      jobs_(BuildGauge()
                .Name("gaptrain_jobs")
                .Help("Slurm jobs by kind (regular or elastic partition) and state")
                .Register(*registry_)),
      operation_(BuildGauge()
                     .Name("gaptrain_operation")
                     .Help("1 for what an admin lets gaptraind do: running, paused or draining")
                     .Register(*registry_)),
      actions_(BuildCounter()
                   .Name("gaptrain_actions_total")
                   .Help("Slurm actions gaptraind made, by action and result")
                   .Register(*registry_)),
      requests_(BuildCounter()
                    .Name("gaptrain_requests_total")
                    .Help("Protocol requests (plugin, launcher, status) by result")
                    .Register(*registry_)),
      requests_accepted_(requests_.Add({{"result", "accepted"}})),
      requests_rejected_(requests_.Add({{"result", "rejected"}})),
      solve_seconds_(BuildHistogram()
                         .Name("gaptrain_solve_seconds")
                         .Help("The allocator's solve time per plan")
                         .Register(*registry_)
                         .Add({}, kSolveBuckets)),
      reclaim_seconds_(BuildHistogram()
                           .Name("gaptrain_reclaim_seconds")
                           .Help("From a reclaim's drain request to its nodes' release")
                           .Register(*registry_)
                           .Add({}, kReclaimBuckets)) {
  for (const char* kind : {"regular", "elastic"}) {
    for (const char* state : {"pending", "running"}) jobs_.Add({{"kind", kind}, {"state", state}});
  }
}

Metrics::~Metrics() = default;

void Metrics::serve(const std::string& host, std::uint16_t port) {
  const std::string address =
      (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" + std::to_string(port);
  // civetweb (prometheus-cpp's server) gives each connection a thread until it is done, and by
  // default waits 30 s for a request: one thread and one idle connection kept every scrape out
  // for that long, and a new idle connection every few seconds kept them out for good. Several
  // threads, and a client that has not sent its request within a few seconds is dropped: a
  // scrape sends its request at once.
  exposer_ = std::make_unique<prometheus::Exposer>(std::vector<std::string>{
      "listening_ports", address, "num_threads", std::to_string(kScrapeThreads),
      "request_timeout_ms", std::to_string(kRequestTimeoutMs), "enable_keep_alive", "no"});
  exposer_->RegisterCollectable(registry_);
}

std::uint16_t Metrics::port() const {
  if (!exposer_) return 0;
  const std::vector<int> ports = exposer_->GetListeningPorts();
  return ports.empty() ? 0 : static_cast<std::uint16_t>(ports.front());
}

prometheus::Counter& Metrics::action_counter(const std::string& action, const std::string& result) {
  return actions_.Add({{"action", action}, {"result", result}});
}

void Metrics::set_by_partition(prometheus::Family<prometheus::Gauge>& family,
                               const std::map<std::string, std::size_t>& counts,
                               std::set<std::string>& seen) {
  for (const auto& [partition, count] : counts) seen.insert(partition);
  for (const std::string& partition : seen) {
    const auto count = counts.find(partition);
    family
        .Add(partition.empty() ? prometheus::Labels{}
                               : prometheus::Labels{{"partition", partition}})
        .Set(count == counts.end() ? 0.0 : static_cast<double>(count->second));
  }
}

void Metrics::update(const core::Snapshot& snapshot, const std::vector<core::Hole>& holes,
                     const core::ElasticJobs& elastic,
                     const core::ElasticPartitions& elastic_partitions,
                     const core::ActionCounts& actions, const EventCounts& events, double mono_s) {
  set_by_partition(hole_nodes_, holes_by_partition(snapshot, holes), hole_partitions_);
  core::NodesByOwner held = elastic_nodes_by_owner(elastic, snapshot, elastic_partitions.first());
  // Each elastic partition's series is there (0) before any job is: a panel shows no elastic use.
  std::map<std::string, std::size_t> elastic_by_partition;
  for (const std::string& partition : elastic_partitions.names()) elastic_by_partition[partition];
  for (const auto& [owner, nodes] : held) elastic_by_partition[owner.partition] += nodes;
  set_by_partition(elastic_nodes_, elastic_by_partition, elastic_partitions_);
  for (const auto& [owner, node_seconds] : node_seconds_meter_.advance(mono_s, std::move(held))) {
    prometheus::Labels labels{{"partition", owner.partition}};
    if (show_users_) labels.emplace("user", owner.user);
    if (show_accounts_) labels.emplace("account", owner.account);
    prometheus::Counter*& series = node_seconds_series_[labels];
    if (series == nullptr) series = &node_seconds_.Add(labels);
    series->Increment(node_seconds);
  }
  managed_jobs_.Set(static_cast<double>(elastic.jobs().size()));

  std::map<std::pair<std::string, std::string>, int> counts;
  for (const char* kind : {"regular", "elastic"}) {
    for (const char* state : {"pending", "running"}) counts[{kind, state}] = 0;
  }
  for (const core::Job& job : snapshot.jobs) {
    if (job.state != core::JobState::pending && job.state != core::JobState::running) continue;
    const std::string kind = elastic_partitions.contains(job.partition) ? "elastic" : "regular";
    ++counts[{kind, job.state == core::JobState::pending ? "pending" : "running"}];
  }
  for (const auto& [key, count] : counts) {
    jobs_.Add({{"kind", key.first}, {"state", key.second}}).Set(static_cast<double>(count));
  }

  for (const auto& [result, by_kind] : {std::pair{std::string("done"), &actions.done},
                                        std::pair{std::string("failed"), &actions.failed}}) {
    for (const auto& [kind, count] : *by_kind) {
      add_increase(action_counter(kind, result), count, actions_seen_[{kind, result}]);
    }
  }
  add_increase(requests_accepted_, events.accepted, events_seen_.accepted);
  add_increase(requests_rejected_, events.rejected, events_seen_.rejected);
}

void Metrics::set_operation(core::Operation operation) {
  for (const core::Operation each :
       {core::Operation::running, core::Operation::paused, core::Operation::draining}) {
    operation_.Add({{"state", std::string(to_string(each))}}).Set(each == operation ? 1.0 : 0.0);
  }
}

void Metrics::set_private_data(const core::PrivateData& private_data) {
  // squeue hides other users' jobs under PrivateData=jobs, sshare and sreport their usage under
  // usage, sacctmgr their records under users (and accounts under accounts): the endpoint has
  // no viewer, so it shows no user what any of these hides.
  const bool show_users = !private_data.jobs && !private_data.usage && !private_data.users;
  const bool show_accounts = !private_data.jobs && !private_data.usage && !private_data.accounts;
  if (show_users == show_users_ && show_accounts == show_accounts_) return;
  show_users_ = show_users;
  show_accounts_ = show_accounts;
  for (const auto& [labels, series] : node_seconds_series_) node_seconds_.Remove(series);
  node_seconds_series_.clear();
}

void Metrics::observe_solve(double seconds) {
  solve_seconds_.Observe(seconds);
}

void Metrics::observe_reclaim(double seconds) {
  reclaim_seconds_.Observe(seconds);
}

std::string Metrics::text() const {
  return prometheus::TextSerializer().Serialize(registry_->Collect());
}

}  // namespace gaptrain::daemon
