#include "simulate_output.hpp"

#include <cstdio>
#include <map>

#include "allocator/allocation_json.hpp"
#include "compare.hpp"
#include "simulator/summary_table.hpp"

namespace gaptrain::cli {

namespace {

Json::Value summary_json(const sim::SimSummary& s, double wall_s) {
  Json::Value json(Json::objectValue);
  json["hole_node_seconds"] = s.hole_node_seconds;
  json["allocated_node_seconds"] = s.allocated_node_seconds;
  json["utilization"] = s.utilization;
  json["usable_node_seconds"] = s.usable_node_seconds;
  json["usable_utilization"] = s.usable_utilization;
  json["useful_samples"] = s.useful_samples;
  json["ideal_samples"] = s.ideal_samples;
  json["efficiency"] = s.efficiency;
  json["waited_node_seconds"] = s.waited_node_seconds;
  json["jobs_submitted"] = s.jobs_submitted;
  json["jobs_completed"] = s.jobs_completed;
  json["progress"] = s.progress;
  add_completion_times(json, s);
  json["rescales"] = Json::Int64(s.rescales);
  json["reclaims"] = Json::Int64(s.reclaims);
  json["preemptions"] = Json::Int64(s.preemptions);
  json["requeues"] = Json::Int64(s.requeues);
  json["pauses"] = Json::Int64(s.pauses);
  json["solves"] = Json::Int64(s.solves);
  json["solver_ms_p50"] = s.solver_ms_p50;
  json["solver_ms_p99"] = s.solver_ms_p99;
  json["solver_ms_max"] = s.solver_ms_max;
  json["simulated_s"] = s.simulated_s;
  json["cycles"] = Json::Int64(s.cycles);
  json["regular_waits"] = Json::Int64(s.regular_waits);
  json["regular_wait_s_p50"] = s.regular_wait_s_p50;
  json["regular_wait_s_p99"] = s.regular_wait_s_p99;
  json["regular_wait_s_max"] = s.regular_wait_s_max;
  json["wall_s"] = wall_s;
  return json;
}

// How many replayed nodes each type has ("" for untyped ones); null when none has a type.
Json::Value node_type_counts_json(const sim::Scenario& in, const sim::SimOptions& options) {
  if (in.trace.node_types.empty()) return {};
  std::map<std::string, int> counts;
  const auto nodes = static_cast<std::size_t>(replayed_nodes(in, options));
  for (std::size_t i = 0; i < nodes; ++i) ++counts[in.trace.node_types[i]];
  if (counts.size() == 1 && counts.contains("")) return {};
  Json::Value json(Json::objectValue);
  for (const auto& [type, count] : counts) json[type] = count;
  return json;
}

}  // namespace

void write_log_header(std::ostream& log) {
  log << "time_s,idle_nodes,allocated_nodes,jobs_running,useful_samples,rescale_loss_samples,"
         "solver_ms\n";
}

void write_log_line(std::ostream& log, const sim::StepRecord& r, double start_s) {
  char line[192];
  std::snprintf(line, sizeof line, "%.3f,%d,%d,%d,%.6g,%.6g,%.3f\n", r.time_s - start_s,
                r.hole_nodes, r.allocated_nodes, r.jobs_running, r.useful_samples,
                r.rescale_loss_samples, r.solver_ms);
  log << line;
}

int replayed_nodes(const sim::Scenario& in, const sim::SimOptions& options) {
  const int trace_nodes = static_cast<int>(in.trace.node_names.size());
  return options.node_limit > 0 ? std::min(options.node_limit, trace_nodes) : trace_nodes;
}

Json::Value parameters_json(const SimulateArgs& args, const sim::Scenario& in,
                            const sim::SimOptions& options) {
  Json::Value p(Json::objectValue);
  p["trace"] = in.trace_name;
  p["trace_kind"] = in.trace_kind;
  p["trace_nodes"] = static_cast<int>(in.trace.node_names.size());
  if (in.trace_kind == "swf") p["swf_records_skipped"] = in.swf_skipped;
  p["jobs"] = in.jobs_name;
  p["curves"] = in.models ? Json::Value() : Json::Value(in.curves_name);
  p["models"] = in.models ? Json::Value(args.models) : Json::Value();
  p["batch"] = in.models ? Json::Value(args.batch) : Json::Value();
  p["repeat_jobs_s"] = in.repeat_s;
  p["policy"] = std::string(sim::to_string(options.policy));
  p["learn"] = options.learn;
  p["tell_allowed_sizes"] = options.tell_allowed_sizes;
  p["node_types"] = in.node_types_name.empty() ? Json::Value() : Json::Value(in.node_types_name);
  p["node_type_counts"] = node_type_counts_json(in, options);
  p["tell_node_types"] = options.tell_node_types;
  p["nodes"] = options.node_limit > 0 ? Json::Value(options.node_limit) : Json::Value();
  p["max_running"] = options.max_running;
  p["start_s"] = options.start_s;
  p["duration_s"] = args.duration_s > 0.0 ? Json::Value(args.duration_s) : Json::Value();
  p["config"] = args.config_path.empty() ? Json::Value() : Json::Value(args.config_path);
  p["horizon_s"] = options.config.horizon_s;
  p["home_partition"] = options.config.home_partition;
  p["satellite_qos"] = options.config.satellite_qos;
  p["objective"] = std::string(to_string(options.objective));
  p["fair_p"] = options.config.fair_p;
  p["placement"] = options.placement == sim::Placement::trace ? "trace" : "slurm";
  p["time_limit_s"] = options.solver.time_limit_s;
  return p;
}

std::string run_json(const SimulateArgs& args, const sim::Scenario& in,
                     const sim::SimOptions& options, const sim::SimSummary& summary, double wall_s,
                     const std::optional<sim::UpperBound>& bound, double bound_wall_s) {
  Json::Value json = summary_json(summary, wall_s);
  for (const char* key :
       {"oracle_samples", "fraction_of_oracle", "oracle_bound", "oracle_buckets", "oracle_wall_s"})
    json[key] = Json::Value();
  if (bound) {
    json["oracle_samples"] = bound->samples;
    json["fraction_of_oracle"] =
        bound->samples > 0.0 ? summary.useful_samples / bound->samples : 0.0;
    json["oracle_bound"] = bound->method;
    json["oracle_buckets"] = bound->buckets;
    json["oracle_wall_s"] = bound_wall_s;
  }
  json["parameters"] = parameters_json(args, in, options);
  return allocator::to_json_text(json, args.pretty);
}

std::string run_table(const SimulateArgs& args, const sim::Scenario& in,
                      const sim::SimOptions& options, const sim::SimSummary& summary, double wall_s,
                      const std::optional<sim::UpperBound>& bound) {
  sim::RunFacts facts;
  facts.trace = in.trace_name;
  facts.policy = args.policy;
  facts.settings = settings_text(options) +
                   (options.placement == sim::Placement::trace ? ", beside the scheduler" : "") +
                   (options.tell_node_types ? "" : ", node types not told");
  facts.learn = options.learn;
  if (in.models) facts.batch = args.batch;
  facts.nodes = replayed_nodes(in, options);
  facts.start_s = options.start_s;
  facts.wall_s = wall_s;
  std::optional<sim::OracleFacts> oracle;
  if (bound) oracle = sim::OracleFacts{bound->samples, bound->method};
  return sim::summary_table(summary, facts, oracle);
}

}  // namespace gaptrain::cli
