// The Slurm of gaptraind's load generator: the replayed Slurm of `gaptrain simulate`
// (simulator/replayed_slurm.hpp), so that both fakes answer and act by one model, behind a lock,
// with the generator's side on top. The daemon's loop polls and acts on its thread while the
// generator changes the cluster on another.
//
// The cluster: `nodes` nodes n00001.. in partitions "regular" and "elastic" (both hold every
// node, as on machines where the elastic partition overlays the others), every node busy with
// the regular workload but the elastic jobs' first nodes. The elastic jobs run on one node each
// (admitted before the run) and grow through satellites as gaptraind decides. A burst of
// regular-job ends frees nodes with a predicted end an hour ahead (the plan's pending jobs, so
// the holes have predicted ends); a burst of starts takes idle nodes. The events name regular
// jobs of mixed sizes (1..128 nodes), as the plugin's epilogs and prologs of such jobs would.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/cluster.hpp"
#include "core/slurm_actions.hpp"
#include "core/slurm_queries.hpp"
#include "simulator/replayed_slurm.hpp"

namespace gaptrain::bench {

struct ClusterShape {
  int nodes = 10000;
  int elastic_jobs = 20;
  int elastic_max_nodes = 64;
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

// An elastic job as it registers.
struct ElasticJobSpec {
  std::uint32_t job_id = 0;
  std::string user;
  std::string batch_host;
  int max_nodes = 1;
};

class SimulatedSlurm final : public core::SlurmQueries, public core::SlurmActions {
 public:
  explicit SimulatedSlurm(const ClusterShape& shape);

  // The ports, each on the replayed Slurm at the wall clock's time.
  Result poll(core::Snapshot& snapshot, std::int64_t now, bool full) override;
  Result load_config(Config& config) override;
  core::ActionResult shrink(const core::ShrinkRequest& request) override;
  core::GrowResult grow(const core::GrowRequest& request) override;
  core::ActionResult release(const std::vector<std::uint32_t>& satellite_ids) override;
  core::ActionResult set_time_limit(std::uint32_t job_id, std::uint32_t minutes) override;
  core::ActionResult admit(const core::AdmitRequest& request) override;
  core::ActionResult requeue(std::uint32_t job_id) override;
  core::ActionResult park(std::uint32_t job_id) override;

  // The generator's side. Frees `nodes` random nodes the regular workload holds (its jobs end
  // early); one node_freed event per node.
  std::vector<NodeEvent> end_regular_jobs(int nodes);
  // The regular workload takes `nodes` random idle nodes (as many as there are); one node_taken
  // event per node.
  std::vector<NodeEvent> start_regular_jobs(int nodes);

  std::vector<ElasticJobSpec> elastic_jobs() const;
  // The nodes no job holds.
  std::set<std::string> idle_nodes() const;
  // Bumped by every change the generator makes; the version the last poll answered with.
  std::uint64_t version() const;
  std::uint64_t version_polled() const;
  SlurmCalls calls() const;

 private:
  // The replay's clock set to the wall clock (called under the lock).
  void catch_up();
  // Groups `nodes` into regular jobs of mixed sizes, one event per node.
  std::vector<NodeEvent> as_regular_jobs(const std::vector<int>& nodes);
  core::ActionResult counted(core::ActionResult result);

  mutable std::mutex mutex_;
  std::mt19937 random_;
  sim::ReplayedSlurm replay_;
  std::vector<ElasticJobSpec> elastic_;
  std::uint32_t next_regular_id_ = 1'000'000;
  std::uint64_t version_ = 1;
  std::uint64_t version_polled_ = 0;
  SlurmCalls calls_;
};

}  // namespace gaptrain::bench
