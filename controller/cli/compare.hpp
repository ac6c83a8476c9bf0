// `gaptrain simulate --compare`: every policy on the same input, and the oracle bound, as one
// table an admin can read (docs/simulator.md, "Comparing the policies"). Computing is apart from
// formatting, so tests can check the numbers.
#pragma once

#include <json/json.h>

#include <functional>
#include <string>
#include <vector>

#include "simulator/simulator.hpp"
#include "simulator/upper_bound.hpp"

namespace gaptrain::cli {

struct CompareRow {
  std::string name;     // gaptrain | bftrainer | bftrainer-method | equal-share
  std::string setting;  // what it ran with, e.g. "throughput, horizon 5 s"
  sim::SimSummary summary;
};

struct Comparison {
  std::vector<CompareRow> rows;
  int reference = 0;  // the row of BFTrainer's method (the better of its two horizons)
  sim::UpperBound bound;
  double bound_wall_s = 0.0;
};

// BFTrainer's method as its paper runs it: throughput, hole ends hidden, these horizons.
inline constexpr double kBftrainerMethodHorizonsS[] = {5.0, 10.0};

// Runs gaptrain (the options' settings), bftrainer (the options' objective and horizon, hole
// ends hidden), BFTrainer's method at both horizons (the better kept) and equal-share, each
// learning its curves when options.learn; then the bound, valid for every row.
// `progress(label)`, when set, is called before each run.
Comparison compare_policies(const sim::HoleTrace& trace, const std::vector<sim::JobRow>& jobs,
                            const sim::CurveTable& curves, const sim::SimOptions& options,
                            const std::function<void(const std::string&)>& progress = {});

// What a policy runs with, as the table's settings column and the summary's title say it:
// "speedup, horizon 120 s"; equal-share has no objective or horizon.
std::string settings_text(const sim::SimOptions& options);

// The jobs' completion times into `json`: mean_jct_s and p90_jct_s (null when no job
// completed), makespan_s (null unless every job of the mix completed). Both JSON outputs use it.
void add_completion_times(Json::Value& json, const sim::SimSummary& summary);

std::string comparison_table(const Comparison& comparison);
Json::Value comparison_json(const Comparison& comparison);

}  // namespace gaptrain::cli
