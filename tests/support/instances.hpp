// Test and benchmark inputs: the measured scaling curves from the shared data set, and a seeded
// generator of random allocation problems. Everything here is deterministic: the same
// parameters give the same problem on every machine (std::mt19937_64 and our own draws, no
// std::*_distribution, whose output the standard leaves to the library).
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "allocator/allocation.hpp"

namespace gaptrain::test_support {

// $GAPTRAIN_SHARED_DATA_DIR/models/curves.csv, fixed at build time.
std::string curves_csv_path();

// Reads a CSV `model,nodes,samples_per_s` (header first, points of one model in increasing node
// order) into one curve per model. Throws std::runtime_error when the file cannot be read and
// InputError when a row or a curve is malformed.
std::map<std::string, ScalingCurve> load_curves(const std::string& path = curves_csv_path());

enum class CurveSource {
  real,          // the measured curves of curves.csv, drawn at random per job
  random_small,  // random node counts in 1..max_nodes with random positive throughputs, not
                 // necessarily concave nor increasing: the cases that need ordering binaries
};

enum class CostSource {
  bftrainer,  // up 17-19 s, down 11-13 s: the range BFTrainer measured
  random,     // up and down each 0-30 s
};

struct InstanceParams {
  int nodes = 10;
  int jobs = 2;
  double held_fraction = 0.5;     // share of the nodes held by running elastic jobs
  double new_job_fraction = 0.2;  // share of the jobs that hold nothing (pending)
  // Nodes with a known hole end, and how the ends are drawn: from `distinct_hole_ends` values
  // drawn once per instance, or (0) a fresh continuous value per node. Values lie in
  // [hole_end_min_s, hole_end_max_s]; values >= horizon_s count as "beyond the horizon".
  double hole_end_fraction = 0.0;
  int distinct_hole_ends = 0;
  double hole_end_min_s = 1.0;
  double hole_end_max_s = 750.0;
  double horizon_s = 600.0;
  allocator::Objective objective = allocator::Objective::throughput;
  double fair_p = 0.0;  // Objective::fair's exponent
  CurveSource curves = CurveSource::real;
  int max_nodes_cap = 64;  // every job's max_nodes is drawn in 1..max_nodes_cap
  int min_nodes_cap = 4;   // every job's min_nodes is drawn in 1..min(min_nodes_cap, max_nodes)
  CostSource costs = CostSource::bftrainer;
  allocator::SolverOptions solver;
  std::uint64_t seed = 1;
};

// A valid random problem (it passes validate()). Nodes are named n0000, n0001, ... and listed
// in a shuffled order; jobs j000, j001, ... Each job that holds nodes holds at most max_nodes of
// them (possibly fewer than min_nodes) and has an explicit batch host among them. Hole ends are
// drawn from a random stream of their own, so two parameter sets that differ only in the
// hole-end fields give the same nodes, jobs and holdings.
allocator::AllocationProblem random_problem(const InstanceParams& params);

// How constrain_sizes() picks a job's allowed sizes.
enum class SizeRule {
  none,           // every count in [min_nodes, max_nodes]
  powers_of_two,  // 1, 2, 4, ... within the bounds
  multiples,      // multiples of a group size of 2 to 4 (2, 4 or 8 for `large`)
  listed,         // a random non-empty subset of the bounds' counts
  mixed,          // one of the above per job, drawn at random
};

// Gives every job of `problem` allowed sizes by `rule`, drawn from `seed`. Where a rule names no
// size within a job's bounds, the job gets a random listed subset instead, so the problem stays
// valid. `large` groups (2, 4, 8) suit jobs of tens of nodes; small ones (2-4) tiny instances.
void constrain_sizes(allocator::AllocationProblem& problem, SizeRule rule, std::uint64_t seed,
                     bool large = false);

// The parameters of bench_solver's grid instance `index` of a size (docs/benchmarks.md): the
// measured curves, half the nodes held, 20% of the jobs new, BFTrainer's costs, and with
// `holes` 20% of the nodes carrying one of 3 hole ends in [10, 590] s. The two hole variants
// of a size share seeds, so they differ only in the hole ends. The solver options are left at
// their defaults for the caller to set.
InstanceParams bench_grid_params(int nodes, int jobs, bool holes, int index);

// Number of distinct availabilities min(hole_end, horizon) (unknown = horizon) over the nodes:
// when it is <= solver.max_hole_classes, no hole end is rounded.
int distinct_availabilities(const allocator::AllocationProblem& problem);

// A readable dump of a problem (JSON-like), for failure messages.
std::string describe(const allocator::AllocationProblem& problem);

}  // namespace gaptrain::test_support
