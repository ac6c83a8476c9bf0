#include "compare.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>

#include "simulator/summary_table.hpp"

namespace gaptrain::cli {

namespace {

double ratio(double a, double b) {
  return b > 0.0 ? a / b : 0.0;
}

std::string horizon_text(double horizon_s) {
  std::ostringstream text;
  text << "horizon " << horizon_s << " s";
  return text.str();
}

}  // namespace

std::string settings_text(const sim::SimOptions& options) {
  if (options.policy == sim::Policy::equal_share) return "equal split, leftovers first come first";
  std::string objective(to_string(options.objective));
  if (options.objective == allocator::Objective::fair) {
    std::ostringstream p;
    p << options.config.fair_p;
    objective += " (p " + p.str() + ")";
  }
  return objective + ", " + horizon_text(options.config.horizon_s);
}

Comparison compare_policies(const sim::HoleTrace& trace, const std::vector<sim::JobRow>& jobs,
                            const sim::CurveTable& curves, const sim::SimOptions& options,
                            const std::function<void(const std::string&)>& progress) {
  Comparison comparison;
  const auto run = [&](const std::string& name, const std::string& setting,
                       sim::SimOptions run_options) {
    if (progress) progress(name);
    comparison.rows.push_back({name, setting, sim::simulate(trace, jobs, curves, run_options)});
  };
  sim::SimOptions gaptrain = options;
  gaptrain.policy = sim::Policy::gaptrain;
  run("gaptrain", settings_text(gaptrain), gaptrain);
  sim::SimOptions bftrainer = options;
  bftrainer.policy = sim::Policy::bftrainer;
  run("bftrainer", settings_text(bftrainer), bftrainer);

  // BFTrainer's method, as BFTrainer runs: beside the scheduler, which takes a node back from
  // whichever job holds it (sim::Placement::trace). The better of its horizons is the
  // reference row.
  std::vector<CompareRow> method;
  for (const double horizon_s : kBftrainerMethodHorizonsS) {
    sim::SimOptions m = options;
    m.policy = sim::Policy::bftrainer;
    m.objective = allocator::Objective::throughput;
    m.config.horizon_s = horizon_s;
    m.placement = sim::Placement::trace;
    if (progress) progress("bftrainer-method");
    method.push_back({"bftrainer-method", settings_text(m) + ", beside the scheduler",
                      sim::simulate(trace, jobs, curves, m)});
  }
  comparison.reference = static_cast<int>(comparison.rows.size());
  comparison.rows.push_back(
      *std::max_element(method.begin(), method.end(), [](const CompareRow& a, const CompareRow& b) {
        return a.summary.useful_samples < b.summary.useful_samples;
      }));

  sim::SimOptions equal_share = options;
  equal_share.policy = sim::Policy::equal_share;
  run("equal-share", settings_text(equal_share), equal_share);

  // One bound for every row: it allows the most node-time any of them held after the trace
  // took it back (the bound grows with it, so it holds for each).
  double waited = 0.0;
  for (const CompareRow& row : comparison.rows)
    waited = std::max(waited, row.summary.waited_node_seconds);
  for (const CompareRow& row : method) waited = std::max(waited, row.summary.waited_node_seconds);
  if (progress) progress("oracle bound");
  const auto started = std::chrono::steady_clock::now();
  comparison.bound = sim::useful_samples_bound(trace, jobs, curves, options, {waited});
  comparison.bound_wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return comparison;
}

std::string comparison_table(const Comparison& c) {
  const double reference = c.rows[static_cast<std::size_t>(c.reference)].summary.useful_samples;
  std::ostringstream out;
  char line[512];
  std::snprintf(line, sizeof line, "%-17s %-50s %14s %7s %10s %11s %7s %9s %9s %5s %9s %9s %9s\n",
                "policy", "settings", "useful samples", "vs BFT", "efficiency", "utilization",
                "usable", "rescales", "of bound", "done", "mean JCT", "p90 JCT", "makespan");
  out << line;
  // A job completion time, or "-" where no job completed (the makespan: not every job).
  const auto jct = [](bool known, double seconds) {
    return known ? sim::duration_text(seconds) : std::string("-");
  };
  for (const CompareRow& row : c.rows) {
    const sim::SimSummary& s = row.summary;
    const bool done = s.jobs_completed > 0;
    std::snprintf(line, sizeof line,
                  "%-17s %-50s %14.6g %7.3f %10.3f %11.3f %7.3f %9lld %9.3f %5d %9s %9s %9s\n",
                  row.name.c_str(), row.setting.c_str(), s.useful_samples,
                  ratio(s.useful_samples, reference), s.efficiency, s.utilization,
                  s.usable_utilization, s.rescales, ratio(s.useful_samples, c.bound.samples),
                  s.jobs_completed, jct(done, s.mean_jct_s).c_str(), jct(done, s.p90_jct_s).c_str(),
                  jct(s.makespan_s > 0.0, s.makespan_s).c_str());
    out << line;
  }
  std::snprintf(line, sizeof line,
                "oracle bound: %.6g samples (%s, %d buckets, %.1f s); no policy can train more.\n"
                "vs BFT: useful samples / those of BFTrainer's method (%s).\n",
                c.bound.samples, c.bound.method.c_str(), c.bound.buckets, c.bound_wall_s,
                c.rows[static_cast<std::size_t>(c.reference)].setting.c_str());
  out << line << sim::kUsableNote;
  return out.str();
}

void add_completion_times(Json::Value& json, const sim::SimSummary& s) {
  const bool any = s.jobs_completed > 0;
  json["mean_jct_s"] = any ? Json::Value(s.mean_jct_s) : Json::Value();
  json["p90_jct_s"] = any ? Json::Value(s.p90_jct_s) : Json::Value();
  json["makespan_s"] = s.makespan_s > 0.0 ? Json::Value(s.makespan_s) : Json::Value();
}

Json::Value comparison_json(const Comparison& c) {
  const double reference = c.rows[static_cast<std::size_t>(c.reference)].summary.useful_samples;
  Json::Value json(Json::objectValue);
  Json::Value rows(Json::arrayValue);
  for (const CompareRow& row : c.rows) {
    const sim::SimSummary& s = row.summary;
    Json::Value r(Json::objectValue);
    r["policy"] = row.name;
    r["settings"] = row.setting;
    r["useful_samples"] = s.useful_samples;
    r["ratio_to_bftrainer_method"] = ratio(s.useful_samples, reference);
    r["efficiency"] = s.efficiency;
    r["utilization"] = s.utilization;
    r["usable_utilization"] = s.usable_utilization;
    r["rescales"] = Json::Int64(s.rescales);
    r["fraction_of_oracle"] = ratio(s.useful_samples, c.bound.samples);
    r["jobs_completed"] = s.jobs_completed;
    add_completion_times(r, s);
    r["regular_waits"] = Json::Int64(s.regular_waits);
    r["waited_node_seconds"] = s.waited_node_seconds;
    rows.append(r);
  }
  json["rows"] = rows;
  json["reference"] = c.rows[static_cast<std::size_t>(c.reference)].setting;
  json["oracle_samples"] = c.bound.samples;
  json["oracle_bound"] = c.bound.method;
  json["oracle_buckets"] = c.bound.buckets;
  json["oracle_wall_s"] = c.bound_wall_s;
  return json;
}

}  // namespace gaptrain::cli
