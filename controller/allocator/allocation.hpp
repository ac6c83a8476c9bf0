// The allocation problem the controller solves at every cluster event, and its answer.
// Plain data: the same structs feed the daemon, the simulator, the CLI and the tests.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gaptrain/goodput.hpp"
#include "gaptrain/scaling_curve.hpp"

namespace gaptrain::allocator {

// What the allocator maximizes. See docs/allocator.md for the math.
enum class Objective {
  throughput,  // sum of samples/s over the horizon (BFTrainer's objective)
  speedup,     // sum of each job's speedup over its own 1-node throughput (BFTrainer "spdup")
  fair,        // weighted alpha-fairness on 1 + speedup (fair_value): proportional at p = 0
};

// Objective::fair's exponent p (AllocationProblem::fair_p): 1 values a job's speedup itself, 0
// its logarithm (proportional fairness, the default), below 0 favours starved jobs more (Pollux's
// p = -1). Above 1 the allocator would concentrate nodes on one job: not a fairness.
inline constexpr double kMinFairP = -4.0;
inline constexpr double kMaxFairP = 1.0;

// Objective::fair's value of a job at `speedup` over its 1-node rate: weight * ((1 + speedup)^p
// - 1) / (p ln 2), alpha-fairness (alpha = 1 - p) on 1 + speedup, so that a job given nothing is
// worth 0 for every p, negative ones included (Pollux's goodput^p is -infinity there and needs
// every job running). At p = 0 its limit, weight * log2(1 + speedup); at p = 1, speedup / ln 2.
double fair_value(double speedup, double weight, double p);

std::string_view to_string(Objective objective);
std::optional<Objective> objective_from_string(std::string_view name);

// A node the allocator may hand out: idle (job empty) or held by an elastic job.
struct AllocatableNode {
  std::string name;
  std::optional<std::string> job;    // elastic job holding it now; empty: idle
  std::optional<double> hole_end_s;  // seconds until the regular workload takes it; empty: unknown
  // The node's kind (a GPU generation, CPU-only, large memory); "" is the default type.
  // A job runs on nodes of one type at a time (curve_on() below), unless it mixes types
  // (AllocatableJob::mix_types).
  std::string type = {};
};

struct AllocatableJob {
  std::string id;
  int min_nodes = 1;
  int max_nodes = 1;
  // The node counts the job can run at, ascending without repeats, all within [min_nodes,
  // max_nodes]: the multiples of a pipeline/tensor-parallel group, or powers of two. Empty: every
  // count in [min_nodes, max_nodes]. The allocator gives the job 0 nodes or one of these.
  std::vector<int> allowed_sizes;
  ScalingCurve curve{{{1, 1.0}}};
  // The job's curve on each node type it can run on. Empty: `curve` on every type (a site
  // without types). Otherwise the job runs only on the types named here ("" for the default
  // type) and `curve` is not used; a type no node has is fine, it is simply never chosen.
  std::map<std::string, ScalingCurve> curves = {};
  // Whether the job may hold nodes of several types at once, running at `curve` on any mix of
  // them (a data loader that balances by node speed, a CPU job). Only with `curve`: with
  // per-type `curves` no rate of a mix is known, so validate() refuses it.
  bool mix_types = false;
  double up_cost_s = 0.0;    // seconds of lost progress for a grow
  double down_cost_s = 0.0;  // seconds of lost progress for a shrink
  // The node running the job's batch script; it can never be removed by a shrink. Empty for a
  // job holding nodes: the held node whose hole lasts longest is assumed.
  std::optional<std::string> batch_host;
  double weight = 1.0;  // used by Objective::fair only
  // A job whose global batch may grow with its nodes (goodput.hpp): it is valued at its goodput
  // curve, built from `curve` (measured at ceil(tuned / min_nodes) samples a node) and its noise
  // scale (samples; its tuned batch when not given), not at its raw throughput.
  std::optional<BatchRange> batch;
  std::optional<double> noise_scale;
};

struct SolverOptions {
  double time_limit_s = 10.0;  // wall-clock limit for the MILP; the incumbent is returned then
  double mip_gap = 1e-6;       // relative gap at which a solution counts as optimal
  int max_hole_classes = 4;    // nodes are grouped into at most this many hole-end classes
  // Options the decomposition may hand to the multiple-choice MILP before it falls back to the
  // compact count-level MILP (0: always the compact model).
  int max_core_options = 200000;
};

struct AllocationProblem {
  double horizon_s = 600.0;
  Objective objective = Objective::throughput;
  double fair_p = 0.0;  // Objective::fair's exponent, in [kMinFairP, kMaxFairP]
  std::vector<AllocatableNode> nodes;
  std::vector<AllocatableJob> jobs;
  SolverOptions solver;
};

// Throws InputError naming the first field that is wrong: duplicate node or job names, a node
// held by an unknown job, min > max, negative costs, a batch host the job does not hold, a
// number beyond gaptrain/bounds.hpp, a job holding nodes of two types (unless it mixes types) or
// of a type it has no curve for, mix_types with per-type curves, ... A max_nodes above the
// problem's node count is not
// wrong: the allocator reads it as "all of them".
void validate(const AllocationProblem& problem);

// The checks of validate() that concern one job alone (fields named under `field`, such as
// "jobs[3]"): a caller assembling a problem from many sources sets a job that fails them aside
// rather than losing the whole problem.
void validate_job(const AllocatableJob& job, const std::string& field);

// The job's curve on nodes of `type`, or nullptr when the job cannot run there (see
// AllocatableJob::curves).
const ScalingCurve* curve_on(const AllocatableJob& job, const std::string& type);

// Whether `job` may run on `nodes` nodes: within [min_nodes, max_nodes] and one of its allowed
// sizes when it names any. (0 nodes, the job off, is always possible and not asked here.)
bool size_allowed(const AllocatableJob& job, int nodes);

// `problem` with every job that has a batch range valued at its goodput curve (goodput_curve,
// adaptive) instead of its throughput curve, and its batch range and noise scale cleared: what
// allocate() solves, so that the allocator itself stays what it was, and exact.
AllocationProblem valued_by_goodput(AllocationProblem problem);

// Whether the solver ran (call status) is kept apart from what it found (model status).
enum class CallStatus { ok, error };
enum class ModelStatus {
  optimal,     // proven optimal within mip_gap
  time_limit,  // time limit reached; the best incumbent is returned
  infeasible,  // no allocation satisfies the constraints (cannot happen for valid input)
  not_solved,  // the call failed; see message
};

std::string_view to_string(CallStatus status);
std::string_view to_string(ModelStatus status);

// The size of the MILP that was solved, for logs and benchmarks.
struct SolveStats {
  int columns = 0;
  int rows = 0;
  int integer_columns = 0;
  int core_jobs = 0;     // jobs whose choice was left to the MILP (the rest were fixed exactly)
  int hole_classes = 0;  // hole-end classes the nodes were grouped into
};

struct AllocationResult {
  CallStatus call_status = CallStatus::error;
  ModelStatus model_status = ModelStatus::not_solved;
  double objective = 0.0;   // value of the returned allocation
  double best_bound = 0.0;  // proven upper bound on any allocation's value
  // Job id -> its nodes; the batch host (kept, or chosen on the longest hole) comes first.
  // Jobs given no nodes are listed with an empty vector.
  std::map<std::string, std::vector<std::string>> allocation;
  double solve_ms = 0.0;
  SolveStats stats;
  std::string message;  // why, when the call failed
};

}  // namespace gaptrain::allocator
