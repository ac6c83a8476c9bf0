#include "simulate_command.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "allocator/allocation_json.hpp"
#include "compare.hpp"
#include "core/config.hpp"
#include "default_scenario.hpp"
#include "gaptrain/bounds.hpp"
#include "gaptrain/cli11.hpp"
#include "gaptrain/input_error.hpp"
#include "one_line.hpp"
#include "simulate_args.hpp"
#include "simulate_output.hpp"
#include "simulator/csv_record.hpp"
#include "simulator/node_types.hpp"
#include "simulator/scenario.hpp"
#include "simulator/sim_options.hpp"
#include "simulator/simulator.hpp"
#include "simulator/timeline_plot.hpp"
#include "simulator/upper_bound.hpp"
#include "simulator/workload_io.hpp"

namespace gaptrain::cli {

namespace {

constexpr const char* kSimulateHelp = R"(Inputs (formats: docs/simulator.md, "Inputs"):
  --swf FILE[.gz]       a Standard Workload Format log, replayed with FCFS + EASY backfill on its
                        MaxNodes nodes: holes, the backfill plan's predicted hole ends and the
                        actual ends all come from the replay
  --node-events FILE    CSV time,node,state (epoch seconds, node name, idle|busy); no plan, so
                        every hole's end is unknown; a 4th column, type, gives the node's type
  --jobs FILE --curves FILE
                        CSV id,submit_s,model,min_nodes,max_nodes,work_samples,up_cost_s,
                        down_cost_s (submit_s relative to --start) and CSV model,nodes,
                        samples_per_s (a 4th column, type: a model's curve per node type, the
                        types it runs on; rows without one: the same curve on every type)
  --node-types TYPE=COUNT,... | FILE
                        the nodes' types (docs/simulator.md, "Node types"): a100=64,v100=64 makes
                        the first 64 nodes a100 and the next 64 v100 (SWF's n001, n002, ...; a
                        node-event log's nodes in order of first appearance), or CSV node,type
                        names each node's type; other nodes keep the trace's type, or none
  With none of these: KTH-SP2 (100 nodes, 11 months, built in) with the example job mix of 30
  ImageNet jobs, resubmitted every 4 hours (--repeat-jobs).
  --jobs FILE --models DIR
                        goodput (docs/simulator.md, "Batch sizes"): the job mix with two more
                        columns, batch_size (M0, the batch it was tuned at) and max_batch_size;
                        DIR holds Pollux's MODEL-scalability.csv and MODEL-validation-BATCH.csv
                        for each model; work_samples is the progress to make, in samples at M0
  --batch RULE          with --models, how a job's global batch follows its node count:
                        adaptive (the default: gaptraind's choice, the best goodput), per-node
                        (each node keeps M0 / min_nodes), global (M0 at any size)

Policies:
  gaptrain      the hole-aware allocator on predicted hole ends (never the actual ones)
  bftrainer     BFTrainer's MILP: the same objective, fixed horizon, no hole ends
  equal-share   BFTrainer's heuristic baseline: idle nodes split equally, leftovers FCFS
  --learn       the allocator is not told curves or costs: it learns them from job progress
  --ignore-allowed-sizes
                gaptraind is not told the counts jobs run at (the mix's allowed_sizes); a job
                given a count between them trains on the largest it can use: what telling
                them gains
  --ignore-node-types
                gaptraind is told no node types: each job registers one curve, its slowest
                type's, and may be given nodes of any type; it still trains at its true curve
                on the types it holds (the slowest of them, at its total count, when it holds
                several; nothing on a type it has no curve for): what telling them gains
  --oracle      also compute the oracle bound: a proven upper bound on the useful samples of
                any policy on this input (docs/simulator.md, "The oracle bound")
  --compare     run every policy on the input and print a table: gaptrain, bftrainer,
                BFTrainer's method (throughput, horizon 5 or 10 s, the better), equal-share,
                each as useful samples, ratio to BFTrainer's method, efficiency, utilization,
                rescales and fraction of the oracle bound (--json FILE: the same as JSON too;
                --json alone: the JSON instead of the table)

Output (stdout): a table for people: the policy, nodes, window, useful samples and efficiency,
  node-hours of the regular workload, the elastic jobs and the idle nodes, utilization, jobs
  submitted and completed, resizes by kind, reclaims and regular jobs' waits, requeues and
  pauses, the solver.
  --json [FILE]: instead of the table, one JSON object for scripts (stdout, or FILE), the
  summary of docs/simulator.md, "Outputs" (hole_node_seconds, allocated_node_seconds,
  utilization, usable_node_seconds, usable_utilization, useful_samples, ideal_samples,
  efficiency, waited_node_seconds, oracle_samples, fraction_of_oracle, oracle_bound,
  jobs_submitted, jobs_completed, mean_jct_s, progress (with --models: samples at the tuned
  batches, each worth its statistical efficiency), rescales, reclaims, preemptions, requeues,
  pauses, solves, solver_ms_p50/p99/max,
  simulated_s, wall_s) and "parameters", the run's inputs. The oracle fields are null unless
  --oracle was given. --pretty indents it (and implies --json).
  --log FILE: CSV, one line per event: time_s (from the window start), idle_nodes (left free by
  the regular workload), allocated_nodes, jobs_running, useful_samples and rescale_loss_samples
  (cumulative samples; the loss is the progress rescales and restarts cost), solver_ms.
  --plot FILE.svg: the cluster's capacity over time, for a browser: stacked areas of the
  regular workload, the elastic jobs and the idle nodes, with a red mark where nodes were
  taken back from elastic jobs; --plot-jobs splits the elastic area into each job's nodes.
  FILE - is stdout, for one of them at a time: the summary goes there unless --json names a file.

Exit status:
  0  the replay ran
  1  an output could not be written
  2  an input or option is wrong (one line on stderr naming the file and line); nothing ran)";

// The replay's inputs: the files named, else the built-in scenario (default_scenario.hpp).
sim::Scenario load_inputs(const SimulateArgs& args) {
  sim::ScenarioFiles files;
  files.swf = args.swf;
  files.node_events = args.node_events;
  files.node_types = args.node_types;
  files.jobs = args.jobs;
  files.curves = args.curves;
  files.models = args.models;
  files.repeat_s = args.repeat_s;
  files.max_input_bytes = args.max_input_mb << 20;
  const sim::BuiltInScenario built_in{.trace_name = kDefaultTraceName,
                                      .swf_text = default_swf_text,
                                      .jobs_name = kDefaultJobsName,
                                      .jobs_csv = default_jobs_csv(),
                                      .curves_name = kDefaultCurvesName,
                                      .curves_csv = default_curves_csv(),
                                      .repeat_s = kDefaultRepeatS};
  return sim::load_scenario(files, built_in);
}

std::optional<BatchRule> batch_rule_from_string(std::string_view name) {
  if (name == "adaptive") return BatchRule::adaptive;
  if (name == "per-node") return BatchRule::per_node;
  if (name == "global") return BatchRule::global;
  return std::nullopt;
}

sim::SimOptions sim_options(const SimulateArgs& args) {
  sim::SimOptions options;
  options.policy = *sim::policy_from_string(args.policy);  // CLI11 checked the name
  options.learn = args.learn;
  options.tell_allowed_sizes = !args.ignore_allowed_sizes;
  options.tell_node_types = !args.ignore_node_types;
  options.max_running = args.max_running;
  options.node_limit = args.nodes;
  options.start_s = args.start_s;
  options.duration_s = args.duration_s > 0.0 ? args.duration_s : sim::kUnknownEnd;
  if (!args.config_path.empty()) {
    const std::string text = sim::read_input_file(args.config_path, args.max_input_mb << 20);
    try {
      options.config = core::parse_config(text);  // gaptraind's own validation
    } catch (const InputError& e) {
      throw InputError(args.config_path, e.what());
    }
  }
  if (args.horizon_s) options.config.horizon_s = *args.horizon_s;
  if (args.fair_p) options.config.fair_p = *args.fair_p;
  if (args.home) {
    // docs/admin.md's set-up: a home partition and a satellite QOS the regular QOS preempts;
    // names the configuration gives are kept.
    core::DaemonConfig& config = options.config;
    if (config.home_partition.empty()) config.home_partition = "elastic-home";
    if (config.satellite_qos.empty()) config.satellite_qos = "satellite";
    if (config.elastic_partitions.contains(config.home_partition))
      throw InputError("--home", "the elastic partition is named \"" + config.home_partition +
                                     "\"; set home_partition to another name in --config");
  }
  options.objective = *allocator::objective_from_string(args.objective);
  options.placement = args.placement == "trace" ? sim::Placement::trace : sim::Placement::slurm;
  options.solver.time_limit_s = args.time_limit_s;
  options.batch_rule = *batch_rule_from_string(args.batch);  // CLI11 checked the name
  return options;
}

// Outputs are opened before the replay, so a typo in a path costs nothing.
// Where --json, --log or --plot writes: a file, or standard output for "-".
struct OutputFile {
  std::string path;
  std::ofstream file;
  bool to_stdout = false;
  std::ostream& stream() { return to_stdout ? std::cout : file; }
};

constexpr std::string_view kStdout = "-";

std::optional<OutputFile> open_output(const std::string& path) {
  if (path.empty()) return std::nullopt;
  if (path == kStdout) return OutputFile{"standard output", std::ofstream(), true};
  OutputFile out{path, std::ofstream(path, std::ios::binary | std::ios::trunc), false};
  if (!out.file) throw InputError(path, "cannot open for writing");
  return out;
}

// The summary goes to stdout unless --json names a file; at most one output may go there.
void check_one_stdout_output(const SimulateArgs& args) {
  const bool summary = !args.json || args.json_path == kStdout;
  const bool log = args.log_path == kStdout;
  const bool plot = args.plot_path == kStdout;
  if (summary + log + plot > 1) {
    throw InputError(log ? "--log" : "--plot",
                     "only one output can go to standard output (-), and the summary goes there "
                     "unless --json names a file");
  }
}

// A one-line bar on stderr, redrawn when the replay moves by half a percent.
class ProgressBar {
 public:
  ProgressBar(std::string label, double start_s, double end_s)
      : label_(std::move(label)), start_s_(start_s), end_s_(end_s) {}
  ~ProgressBar() {
    if (shown_ >= 0) std::cerr << "\r\033[K" << std::flush;
  }
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  void update(double time_s) {
    const double fraction = std::clamp((time_s - start_s_) / (end_s_ - start_s_), 0.0, 1.0);
    const int permille = static_cast<int>(fraction * 1000.0);
    if (permille < shown_ + 5) return;
    shown_ = permille;
    constexpr int kWidth = 30;
    const int filled = permille * kWidth / 1000;
    std::cerr << '\r' << label_ << " [" << std::string(static_cast<std::size_t>(filled), '#')
              << std::string(static_cast<std::size_t>(kWidth - filled), '.') << "] "
              << permille / 10 << "% (day " << static_cast<int>((time_s - start_s_) / 86400.0)
              << " of " << static_cast<int>(std::ceil((end_s_ - start_s_) / 86400.0)) << ")"
              << std::flush;
  }

 private:
  std::string label_;
  double start_s_;
  double end_s_;
  int shown_ = -1;
};

// More submissions than a replay can hold (a year of KTH submits 60,000 regular jobs): a period
// of --repeat-jobs this short is a typo. Why, when it is.
constexpr double kMostSubmittedJobs = 1e6;
std::optional<std::string> too_many_repeats(std::size_t mix, double period_s, double window_s) {
  if (period_s <= 0.0 || mix == 0) return std::nullopt;
  const double rounds = std::ceil(std::max(0.0, window_s) / period_s);
  if (rounds * static_cast<double>(mix) <= kMostSubmittedJobs) return std::nullopt;
  std::ostringstream why;
  why << "--repeat-jobs: every " << period_s << " s over the " << window_s << " s window submits "
      << rounds * static_cast<double>(mix) << " jobs (at most " << kMostSubmittedJobs
      << "): repeat the mix less often";
  return why.str();
}

// --compare: every policy on the input, then the table on stdout and, with --json, the same as
// JSON there (`json_out`, opened before the runs like the summary's; "-" puts it on stdout
// instead of the table).
int run_compare(const SimulateArgs& args, const sim::Scenario& in,
                const std::vector<sim::JobRow>& jobs, const sim::SimOptions& options,
                std::optional<OutputFile>& json_out) {
  const bool show_progress = isatty(STDERR_FILENO) == 1;
  Comparison comparison;
  try {
    comparison = compare_policies(in.trace, jobs, in.curves, options, [&](const std::string& what) {
      if (show_progress) std::cerr << "\r\033[K" << what << "..." << std::flush;
    });
    if (show_progress) std::cerr << "\r\033[K" << std::flush;
  } catch (const InputError& e) {
    report("simulate", e.what());
    return kExitBadInput;
  }
  if (!json_out || !json_out->to_stdout) {
    std::cout << "gaptrain simulate --compare: " << in.trace_name << ", " << jobs.size() << " jobs"
              << (options.learn ? ", curves learned" : "")
              << (options.tell_node_types ? "" : ", node types not told") << "\n"
              << comparison_table(comparison);
    if (!std::cout.flush()) {
      report("simulate", "cannot write the table to stdout");
      return kExitFailure;
    }
  }
  if (json_out) {
    Json::Value json = comparison_json(comparison);
    json["parameters"] = parameters_json(args, in, options);
    json_out->stream() << allocator::to_json_text(json, args.pretty) << '\n';
    if (!json_out->stream().flush()) {
      report("simulate", "cannot write " + json_out->path);
      return kExitFailure;
    }
  }
  return kExitOk;
}

// --jobs goes with --curves or with --models; --batch, and neither --oracle nor --compare (whose
// bound knows curves only), with --models.
void check_model_options(const SimulateArgs& args) {
  if (!args.models.empty()) {
    if (args.jobs.empty())
      throw InputError("--models", "needs --jobs: a job mix with batch_size and max_batch_size");
    if (!args.curves.empty())
      throw InputError("--curves", "--models gives the jobs' curves: leave --curves out");
    if (args.with_oracle || args.compare)
      throw InputError(args.compare ? "--compare" : "--oracle",
                       "the oracle bound knows raw throughput curves, not goodput: leave it out "
                       "with --models");
    return;
  }
  if (args.batch_given)
    throw InputError("--batch", "is how a job's batch follows its nodes under --models DIR");
  if (args.jobs.empty() != args.curves.empty())
    throw InputError(args.jobs.empty() ? "--curves" : "--jobs",
                     "--jobs and --curves go together (or leave both out for the example mix)");
}

int run_simulate(const SimulateArgs& args) {
  sim::Scenario in;
  sim::SimOptions options;
  std::optional<OutputFile> json_out, log_out, plot_out;  // json_out: with --json only
  try {
    check_model_options(args);
    if (args.fair_p && args.objective != "fair")
      throw InputError("--fair-p", "is the fair objective's exponent: add --objective fair");
    if (args.compare && (!args.log_path.empty() || !args.plot_path.empty()))
      throw InputError("--compare",
                       "prints a table of every policy; --log and --plot are for one policy's "
                       "run (leave --compare out)");
    in = load_inputs(args);
    options = sim_options(args);
    options.models = in.models;
    if (!in.models) {
      sim::check_jobs_have_node_types(in.trace, replayed_nodes(in, options), in.jobs, in.curves,
                                      in.jobs_name);
    }
    check_one_stdout_output(args);
    json_out = open_output(args.json_path);
    log_out = open_output(args.log_path);
    plot_out = open_output(args.plot_path);
  } catch (const InputError& e) {
    report("simulate", e.what());
    return kExitBadInput;
  }
  const double window_end = std::min(in.trace.end_s, options.start_s + options.duration_s);
  if (const std::optional<std::string> why =
          too_many_repeats(in.jobs.size(), in.repeat_s, window_end - options.start_s)) {
    report("simulate", *why);
    return kExitBadInput;
  }
  const std::vector<sim::JobRow> jobs =
      sim::repeat_jobs(in.jobs, in.repeat_s, window_end - options.start_s);
  if (args.compare) return run_compare(args, in, jobs, options, json_out);

  std::optional<sim::TimelinePlot> plot;
  if (plot_out) plot.emplace(options.start_s, window_end, replayed_nodes(in, options));
  if (log_out) write_log_header(log_out->stream());
  const bool show_progress = isatty(STDERR_FILENO) == 1;
  std::optional<ProgressBar> bar;
  if (show_progress)
    bar.emplace(std::string(sim::to_string(options.policy)), options.start_s, window_end);
  const sim::StepObserver observer = [&](const sim::StepRecord& record) {
    if (log_out) write_log_line(log_out->stream(), record, options.start_s);
    if (plot) plot->add(record);
    if (bar) bar->update(record.time_s);
  };

  const auto started = std::chrono::steady_clock::now();
  sim::SimSummary summary;
  std::optional<sim::UpperBound> bound;
  double bound_wall_s = 0.0;
  try {
    summary = sim::simulate(in.trace, jobs, in.curves, options,
                            log_out || plot || bar ? observer : sim::StepObserver());
    bar.reset();
    if (args.with_oracle) {
      // The bound allows the node-time this run held after the trace took it back.
      const auto bound_started = std::chrono::steady_clock::now();
      bound = sim::useful_samples_bound(in.trace, jobs, in.curves, options,
                                        {summary.waited_node_seconds});
      bound_wall_s =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - bound_started).count();
    }
  } catch (const InputError& e) {
    report("simulate", e.what());
    return kExitBadInput;
  }
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  const std::string text =
      args.json ? run_json(args, in, options, summary, wall_s, bound, bound_wall_s) + "\n"
                : run_table(args, in, options, summary, wall_s, bound);
  int status = kExitOk;
  auto check = [&](std::ostream& stream, const std::string& what) {
    if (!stream.flush()) {
      report("simulate", "cannot write " + what);
      status = kExitFailure;
    }
  };
  if (plot) {
    plot_out->stream() << plot->render_svg(
        jobs,
        "gaptrain simulate: " + in.trace_name + ", policy " + args.policy +
            (args.learn ? " (learned curves)" : ""),
        args.plot_jobs ? sim::TimelineDetail::jobs : sim::TimelineDetail::capacity);
    check(plot_out->stream(), plot_out->path);
  }
  if (log_out) check(log_out->stream(), log_out->path);
  if (json_out) {
    json_out->stream() << text;
    check(json_out->stream(), json_out->path);
  } else {
    std::cout << text;
    check(std::cout, "the summary to stdout");
  }
  return status;
}

// CLI11's numeric checks let "inf" and "nan" through; the replay needs real seconds.
// Seconds >= 0 (> 0 unless `allow_zero`), and at most `most` where the allocator bounds them
// (gaptrain/bounds.hpp).
CLI::Validator finite_seconds(bool allow_zero, double most = HUGE_VAL) {
  return CLI::Validator(
      [allow_zero, most](const std::string& text) -> std::string {
        std::size_t used = 0;
        double value = 0.0;
        try {
          value = std::stod(text, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used != text.size() || !std::isfinite(value) || value < 0.0 ||
            (!allow_zero && value == 0.0))
          return std::string("must be a finite number of seconds ") +
                 (allow_zero ? ">= 0" : "> 0") + ", got \"" + text + "\"";
        if (value > most) {
          std::ostringstream why;
          why << "must be at most " << most << " seconds, got \"" << text << "\"";
          return why.str();
        }
        return {};
      },
      "SECONDS");
}

// One of simulate's numeric options (simulator/sim_options.hpp): its help, with the default where
// it has one, and its bounds as the check.
template <typename T>
void add_number(CLI::App* app, const sim::SimOption& option, T& target) {
  std::ostringstream help;
  help << option.description;
  if (option.default_value != 0) help << " (default " << option.default_value << ")";
  CLI::Option* added = app->add_option(std::string(option.flag), target, help.str())
                           ->type_name(std::string(option.value_name));
  if constexpr (std::is_floating_point_v<T>) {
    added->check(finite_seconds(!option.above_min, option.max));
  } else {
    added->check(CLI::Range(static_cast<T>(option.min), static_cast<T>(option.max)));
  }
}

template <typename T>
void add_number(CLI::App* app, const sim::SimOption& option, std::optional<T>& target) {
  std::ostringstream help;
  help << option.description;
  app->add_option(std::string(option.flag), target, help.str())
      ->type_name(std::string(option.value_name))
      ->check(finite_seconds(!option.above_min, option.max));
}

// The policies by name; the one that was removed says what replaced it.
CLI::Validator policy_name() {
  return CLI::Validator(
      [](const std::string& name) -> std::string {
        if (name == "oracle")
          return "the oracle policy was removed: --oracle now computes a proven upper bound on "
                 "every policy (docs/simulator.md, \"The oracle bound\")";
        if (!sim::policy_from_string(name))
          return "expected gaptrain, bftrainer or equal-share, got \"" + name + "\"";
        return {};
      },
      "NAME");
}

}  // namespace

Command add_simulate_command(CLI::App& parent) {
  auto args = std::make_shared<SimulateArgs>();
  CLI::App* app = parent.add_subcommand(
      "simulate",
      "Replay a scheduler log or node-event log with elastic training jobs and report what "
      "gaptrain would have done (no input flags: a built-in KTH-SP2 scenario)");
  app->footer(kSimulateHelp);
  auto* swf = app->add_option("--swf", args->swf, "Standard Workload Format log (.gz ok)")
                  ->type_name("FILE");
  app->add_option("--node-events", args->node_events, "CSV time,node,state (.gz ok)")
      ->type_name("FILE")
      ->excludes(swf);
  app->add_option("--jobs", args->jobs, "Elastic job mix CSV (needs --curves)")->type_name("FILE");
  app->add_option("--curves", args->curves, "Scaling curves CSV (needs --jobs)")->type_name("FILE");
  app->add_option("--models", args->models,
                  "Pollux model files (needs --jobs with batch_size, max_batch_size)")
      ->type_name("DIR");
  app->add_option_function<std::string>(
         "--batch",
         [args](const std::string& rule) {
           args->batch = rule;
           args->batch_given = true;
         },
         "With --models: adaptive (default) | per-node | global")
      ->check(CLI::IsMember({"adaptive", "per-node", "global"}))
      ->type_name("RULE");
  app->add_option("--policy", args->policy, "gaptrain | bftrainer | equal-share")
      ->type_name("NAME")
      ->check(policy_name());
  app->add_flag("--learn", args->learn,
                "Do not tell the allocator the curves and costs: learn them from progress");
  app->add_flag("--ignore-allowed-sizes", args->ignore_allowed_sizes,
                "Do not tell gaptraind the counts the jobs run at (allowed_sizes)");
  app->add_option("--node-types", args->node_types,
                  "The nodes' types: TYPE=COUNT,... in node order (a100=64,v100=64) or a CSV "
                  "file node,type (.gz ok)")
      ->type_name("SPEC|FILE");
  app->add_flag("--ignore-node-types", args->ignore_node_types,
                "Do not tell gaptraind the node types: one curve per job (its slowest type's)");
  add_number(app, sim::kNodesOption, args->nodes);
  add_number(app, sim::kMaxRunningOption, args->max_running);
  add_number(app, sim::kStartOption, args->start_s);
  add_number(app, sim::kDurationOption, args->duration_s);
  app->add_option("--config", args->config_path,
                  "gaptraind's configuration (gaptraind.json): the replay runs the daemon's "
                  "core with its settings (default: the daemon's defaults)")
      ->type_name("FILE");
  app->add_flag("--home", args->home,
                "The home mode (docs/admin.md): batch scripts on a shared home node, every "
                "training node a satellite Slurm preempts for a regular job at once; a job left "
                "with no node is paused, never requeued. Sets home_partition and satellite_qos "
                "where --config leaves them empty");
  app->add_option("--horizon", args->horizon_s,
                  "The allocator's planning horizon (default: the configuration's horizon_s, " +
                      std::to_string(static_cast<int>(core::kHorizonS.default_value)) +
                      " unless set)")
      ->type_name("SECONDS")
      ->check(finite_seconds(false, bounds::kMaxSeconds));
  app->add_option("--objective", args->objective,
                  "speedup (default) | throughput | fair; see docs/simulator.md")
      ->type_name("NAME")
      ->check(CLI::IsMember({"throughput", "speedup", "fair"}));
  app->add_option("--fair-p", args->fair_p,
                  "With --objective fair, its exponent: 0 proportional fairness, -1 Pollux's, "
                  "1 speedup (default: the configuration's fair_p, 0 unless set)")
      ->type_name("P")
      ->check(CLI::Range(core::kFairP.min, core::kFairP.max));
  app->add_option("--placement", args->placement,
                  "Where a regular job runs that the trace starts on a node an elastic job "
                  "holds: slurm (default: on an idle node if any, as Slurm would start it, else "
                  "the first node given back) | trace (that very node, taken back from the "
                  "elastic job: BFTrainer beside the scheduler)")
      ->type_name("NAME")
      ->check(CLI::IsMember({"slurm", "trace"}));
  add_number(app, sim::kTimeLimitOption, args->time_limit_s);
  add_number(app, sim::kRepeatJobsOption, args->repeat_s);
  add_number(app, sim::kMaxInputMbOption, args->max_input_mb);
  app->add_flag("--oracle", args->with_oracle,
                "Also compute the oracle bound, a proven upper bound on any policy's useful "
                "samples on this input: oracle_samples and fraction_of_oracle");
  app->add_flag("--compare", args->compare,
                "Run every policy on the input and print a table with the oracle bound (--json "
                "FILE: the same as JSON)");
  // Without FILE, the JSON goes to stdout (the table's place): the form scripts use.
  CLI::Option* json = app->add_option("--json", args->json_path,
                                      "The summary as JSON instead of the table: to FILE, or "
                                      "stdout without FILE (or -)")
                          ->type_name("[FILE]")
                          ->expected(0, 1);
  app->add_option("--log", args->log_path, "Write a CSV line per event here (- is stdout)")
      ->type_name("FILE");
  CLI::Option* plot =
      app->add_option("--plot", args->plot_path,
                      "Write an SVG timeline here (- is stdout): regular, elastic and idle nodes "
                      "over time, with reclaims marked")
          ->type_name("FILE.svg");
  app->add_flag("--plot-jobs", args->plot_jobs,
                "In --plot, split the elastic area into each job's nodes")
      ->needs(plot);
  app->add_flag("--pretty", args->pretty, "Indent the summary JSON (implies --json)");
  return Command{app, [args, json] {
                   args->json = json->count() > 0 || args->pretty;
                   if (args->json && args->json_path.empty())
                     args->json_path = std::string(kStdout);
                   return run_simulate(*args);
                 }};
}

}  // namespace gaptrain::cli
