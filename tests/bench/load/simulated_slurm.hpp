// A simulated Slurm cluster for gaptraind's load generator: what slurmctld would answer
// (SlurmQueries) and what it would do with gaptraind's resizes (SlurmActions), over one state
// that the generator changes too (regular jobs ending and starting). Thread-safe: the daemon's
// loop polls and acts on its thread while the generator changes the cluster on another.
//
// The cluster: `nodes` nodes n00001.. in partitions "regular" and "elastic" (both hold every
// node, as on machines where the elastic partition overlays the others), every node busy with
// a regular job of a mixed size (1..128 nodes) but the elastic jobs' first nodes; pending
// regular jobs whose backfill plan (sched_nodes, an hour ahead) names busy nodes, so the holes
// the bursts open have predicted ends; elastic jobs on one node each, growing through
// satellite allocations as gaptraind decides.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/cluster.hpp"
#include "core/slurm_actions.hpp"
#include "core/slurm_queries.hpp"

namespace gaptrain::bench {

struct ClusterShape {
  int nodes = 10000;
  int elastic_jobs = 20;
  int elastic_max_nodes = 64;
  int pending_jobs = 100;
  std::uint32_t seed = 1;
};

// How often gaptraind asked and acted.
struct SlurmCalls {
  std::uint64_t polls = 0;
  std::uint64_t shrinks = 0;
  std::uint64_t grows = 0;
  std::uint64_t grown_nodes = 0;
  std::uint64_t releases = 0;
  std::uint64_t time_limits = 0;
  std::uint64_t admits = 0;
  std::uint64_t requeues = 0;
  std::uint64_t parks = 0;
  std::uint64_t refused = 0;  // actions the simulated Slurm refused (a node no longer idle...)

  std::uint64_t actions() const {
    return shrinks + grows + releases + time_limits + admits + requeues + parks;
  }
};

// One plugin event to send: job `job_id` freed or took `node`.
struct NodeEvent {
  std::uint32_t job_id = 0;
  std::string node;
};

struct ElasticJobSpec {
  std::uint32_t job_id = 0;
  std::string user;
  std::string batch_host;
  int max_nodes = 1;
};

class SimulatedSlurm final : public core::SlurmQueries, public core::SlurmActions {
 public:
  explicit SimulatedSlurm(const ClusterShape& shape);

  // SlurmQueries: the cluster as it is now (the whole table every time, as a full load).
  Result poll(core::Snapshot& snapshot, std::int64_t now, bool full) override;
  Result load_config(Config& config) override;

  // SlurmActions, applied to the state at once.
  core::ActionResult shrink(const core::ShrinkRequest& request) override;
  core::GrowResult grow(const core::GrowRequest& request) override;
  core::ActionResult release(const std::vector<std::uint32_t>& satellite_ids) override;
  core::ActionResult set_time_limit(std::uint32_t job_id, std::uint32_t minutes) override;
  core::ActionResult admit(const core::AdmitRequest& request) override;
  core::ActionResult requeue(std::uint32_t job_id) override;
  core::ActionResult park(std::uint32_t job_id) override;

  // The generator's side. Ends random running regular jobs until at least `nodes` nodes are
  // free of them; one node_freed event per node.
  std::vector<NodeEvent> end_regular_jobs(int nodes);
  // Starts regular jobs of mixed sizes on `nodes` random idle nodes (as many as there are);
  // one node_taken event per node.
  std::vector<NodeEvent> start_regular_jobs(int nodes);

  std::vector<ElasticJobSpec> elastic_jobs() const;
  // The nodes no job holds.
  std::set<std::string> idle_nodes() const;
  // Bumped by every change the generator makes; the version the last poll answered with.
  std::uint64_t version() const;
  std::uint64_t version_polled() const;
  SlurmCalls calls() const;

 private:
  core::Job& add_job(core::Job job);  // allocates its nodes
  void free_nodes(const std::vector<std::string>& nodes);
  core::ActionResult refuse(std::string why);
  std::int64_t wall() const;

  mutable std::mutex mutex_;
  std::mt19937 random_;
  std::vector<core::Node> nodes_;
  std::map<std::string, std::size_t> node_index_;
  std::map<std::uint32_t, core::Job> jobs_;
  std::vector<std::uint32_t> running_regular_;  // ends are drawn from these
  std::vector<core::Partition> partitions_;
  std::vector<ElasticJobSpec> elastic_;
  std::uint32_t next_job_id_ = 1000;
  std::uint64_t version_ = 1;
  std::uint64_t version_polled_ = 0;
  SlurmCalls calls_;
};

}  // namespace gaptrain::bench
