// The trace-driven simulator: replays a hole trace and a mix of elastic jobs through gaptraind's
// own decision core (core/cycle.hpp) and a simulated Slurm (replayed_slurm.hpp), with the
// daemon's settings (docs/simulator.md). Pure: plain structs in, plain structs out; what happens
// at each step reaches the caller through an observer (log, plot, progress bar).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "allocator/allocation.hpp"
#include "core/config.hpp"
#include "core/planner.hpp"
#include "simulator/pollux_models.hpp"
#include "simulator/replayed_slurm.hpp"
#include "simulator/sim_options.hpp"
#include "simulator/trace.hpp"
#include "simulator/workload_io.hpp"

namespace gaptrain::sim {

// Every policy runs the same core and Slurm mechanics (reclaims, drains, leases); they differ
// only in what the planner is told or uses (PlannerSettings).
enum class Policy {
  gaptrain,     // what gaptraind does: the allocator on the plan's predicted hole ends
  bftrainer,    // BFTrainer: the same allocator, not told hole ends (fixed horizon)
  equal_share,  // BFTrainer's heuristic baseline: idle nodes split equally, leftovers FCFS
};
std::string_view to_string(Policy policy);
std::optional<Policy> policy_from_string(std::string_view name);

struct SimOptions {
  Policy policy = Policy::gaptrain;
  // The allocator is not told curves or costs; it learns them from the progress the jobs report.
  bool learn = false;
  // False: the jobs' allowed sizes (the mix's allowed_sizes column) are not told to gaptraind; a
  // job given a count between them still trains on the largest it can use. The comparison that
  // says what telling them gains.
  bool tell_allowed_sizes = true;
  // False (--ignore-node-types): gaptraind is told no node types, as a site that
  // configured none; each job registers one curve (its model's slowest type's, ModelCurves) and
  // may be placed on any nodes, mixing types. The jobs still train at their true curves on the
  // types they hold, and Slurm still places regular jobs by type.
  bool tell_node_types = true;
  // Where a regular job runs that the trace starts on a node an elastic job holds: where Slurm
  // would start it (gaptrain, inside Slurm), or on the trace's very node (BFTrainer, beside the
  // scheduler). replayed_slurm.hpp.
  Placement placement = Placement::slurm;
  int max_running = static_cast<int>(kMaxRunningOption.default_value);  // in Slurm at once
  int node_limit = 0;               // > 0: only nodes with index < node_limit offer holes
  double start_s = 0.0;             // the window simulated, in trace seconds; job submit times
  double duration_s = kUnknownEnd;  // are relative to start_s
  // gaptraind's settings (gaptraind.json: horizon, graces, lease, idle reserve, partition):
  // the core runs with these, as the daemon does.
  core::DaemonConfig config;
  // The planner's objective and solver, as gaptraind's (PlannerSettings).
  allocator::Objective objective = core::PlannerSettings{}.objective;
  allocator::SolverOptions solver = core::PlannerSettings{}.solver;
  // Pollux models (`--models`): with them every job has a batch range and trains by
  // its model (batch_training.hpp); the curves table is not used. Shared: the options are copied
  // per policy.
  std::shared_ptr<const ModelTable> models;
  // How the jobs' batch follows their node count: adaptive (gaptraind's choice, the jobs
  // register their batch ranges), or a fixed rule (the jobs register no range).
  BatchRule batch_rule = BatchRule::adaptive;
};

// Completion times are computed in floating point: a job within this much of its end is done
// (crediting a little less than its work; the upper bound allows for it).
inline constexpr double kDoneTolerance_s = 1e-6;

// A job holding nodes after a step. `job` indexes the job list given to simulate().
struct JobNodes {
  int job = 0;
  int nodes = 0;
};

// What one step did, for logs and plots. Cumulative values are totals since the window start.
struct StepRecord {
  double time_s = 0.0;
  int hole_nodes = 0;                 // nodes the regular workload leaves free (allocated or not)
  int allocated_nodes = 0;            // of those, held by elastic jobs after the step
  int jobs_running = 0;               // elastic jobs holding nodes after the step
  double useful_samples = 0.0;        // cumulative progress
  double rescale_loss_samples = 0.0;  // cumulative samples lost to rescales and restarts
  double solver_ms = 0.0;             // this step's solve; 0 when it did not solve
  int reclaimed_nodes = 0;            // nodes the regular workload took back from elastic jobs
  std::vector<JobNodes> allocation;   // by job index
};
using StepObserver = std::function<void(const StepRecord&)>;

// The JSON summary of docs/simulator.md, "Event semantics" (the CLI adds the run's parameters).
struct SimSummary {
  double hole_node_seconds = 0.0;       // idle node-time offered
  double allocated_node_seconds = 0.0;  // node-time held by elastic jobs
  double utilization = 0.0;             // allocated / hole
  // The hole node-time the elastic jobs in Slurm could have held: at each moment the hole
  // nodes, at most the sum of those jobs' maximum node counts. A mix of ten 64-node jobs
  // cannot fill a 1,000-node hole, whatever the policy.
  double usable_node_seconds = 0.0;
  double usable_utilization = 0.0;  // allocated / usable
  double useful_samples = 0.0;      // samples trained on, net of rescale and restart losses
  double ideal_samples = 0.0;       // the same allocations with zero rescale cost
  double efficiency = 0.0;          // useful / ideal
  // Node-time elastic jobs held, and trained on, after the trace took the node back (a regular
  // job waiting for each): training outside the holes, which the upper bound must allow.
  double waited_node_seconds = 0.0;
  // Pollux's progress: samples at each job's tuned batch, a sample at a larger batch counting for
  // its statistical efficiency. useful_samples where no job has a batch range.
  double progress = 0.0;
  int jobs_submitted = 0;
  int jobs_completed = 0;
  double mean_jct_s = 0.0;  // completed jobs' mean time from submission to completion
  double p90_jct_s = 0.0;   // and its 90th percentile
  // From the first job's submission to the last one's completion, when every job of the mix
  // completed within the window; else 0 (not known).
  double makespan_s = 0.0;
  long long rescales = 0;  // grows, shrinks, starts and restarts the jobs paid for
  // The rescales by kind (they sum to rescales): a start is training begun from no nodes (the
  // first start, or a restart after the job lost all of them).
  long long rescale_starts = 0;
  long long rescale_grows = 0;
  long long rescale_shrinks = 0;
  long long reclaims = 0;  // nodes taken back from elastic jobs by the regular workload
  // Of those, satellites Slurm preempted (satellite_qos): the regular job started at once.
  long long preemptions = 0;
  // Jobs put back in the queue (a batch host or the minimum lost), and jobs at home left with no
  // node (paused, running on the home node): the two ways a job stops training in Slurm.
  long long requeues = 0;
  long long pauses = 0;
  long long solves = 0;
  double solver_ms_p50 = 0.0;
  double solver_ms_p99 = 0.0;
  double solver_ms_max = 0.0;
  double simulated_s = 0.0;  // length of the window replayed
  // The harm to the regular workload: a job the trace starts on a node an elastic job holds
  // waits until the node is given back (replayed_slurm.hpp).
  long long regular_waits = 0;
  double regular_wait_s_p50 = 0.0;
  double regular_wait_s_p99 = 0.0;
  double regular_wait_s_max = 0.0;
  long long cycles = 0;  // the core's decisions (gaptraind's polls that could change anything)
};

// Replays `trace` in the window of `options` with `jobs` (submit times relative to the window
// start) whose true scaling curves are `curves` (or, with options.models, whose models those
// are). Throws InputError for options or jobs that cannot run (e.g. a model without a curve).
// `observer`, when set, sees every step.
SimSummary simulate(const HoleTrace& trace, const std::vector<JobRow>& jobs,
                    const CurveTable& curves, const SimOptions& options,
                    const StepObserver& observer = {});

// The job mix resubmitted every `period_s` seconds (ids get "#2", "#3", ... appended) for as long
// as submits fall before `until_s`; period_s <= 0 returns the mix unchanged.
std::vector<JobRow> repeat_jobs(const std::vector<JobRow>& jobs, double period_s, double until_s);

}  // namespace gaptrain::sim
