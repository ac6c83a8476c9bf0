// A proven upper bound on the useful samples of any policy the simulator can run on an input
// (docs/simulator.md, "The oracle bound"): every --policy, with or without --learn, any
// gaptraind.json. Pure: plain structs in, a number and how it was got out.
//
// It is the optimum of a linear relaxation of every replay: time cut into buckets, and per job
// and bucket the seconds it trains, its node-seconds and its samples, bounded by the hole
// node-time, the max_running slots, each job's work, the concave hull of its true curve (with
// node types, at each count its fastest type's: any hole node is let serve any job) and
// its users' first-come-first-served submission (per job, or as the mix the pools of one model
// and max_nodes must keep). The replay's own trajectory is a feasible
// point of it, so no replay trains more.
#pragma once

#include <string>
#include <vector>

#include "simulator/simulator.hpp"
#include "simulator/trace.hpp"
#include "simulator/workload_io.hpp"

namespace gaptrain::sim {

struct BoundOptions {
  // Node-seconds during which elastic jobs kept training on nodes the trace had taken back
  // (SimSummary::waited_node_seconds of the run, or the largest of several runs). The replay
  // lets a job train there until gaptraind gives the node back, so that much training node-time
  // lies outside the holes; the bound lets the relaxation place it anywhere.
  double waited_node_seconds = 0.0;
  // The per-job relaxation is used while (job, bucket) pairs fit in this budget (its size, and
  // so its solve time, grows with them); beyond, the per-model relaxation alone.
  long long max_job_buckets = 4'000;
  int max_buckets = 250;  // finest cut of the window
};

struct UpperBound {
  double samples = 0.0;  // >= useful_samples of every replay of the input
  // Which relaxation gave it: "per-job LP" (first-come-first-served modelled) or "per-model LP"
  // (jobs of one model and max_nodes pooled, kept to the submission mix; the order within a
  // pool ignored).
  std::string method;
  int buckets = 0;        // of the relaxation that gave it
  int jobs_modelled = 0;  // jobs that can start within the window
};

// Throws InputError for what simulate() refuses (options, unknown models).
UpperBound useful_samples_bound(const HoleTrace& trace, const std::vector<JobRow>& jobs,
                                const CurveTable& curves, const SimOptions& options,
                                const BoundOptions& bound = {});

}  // namespace gaptrain::sim
