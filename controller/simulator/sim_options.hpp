// `gaptrain simulate`'s own numeric options as one table: flag, default, bounds and what it
// means. SimOptions' defaults, the command line's checks and its --help come from here. What
// the replayed core runs with is gaptraind's table (core/settings.hpp), read from --config.
#pragma once

#include <array>
#include <string_view>

#include "core/settings.hpp"
#include "gaptrain/bounds.hpp"

namespace gaptrain::sim {

struct SimOption {
  std::string_view flag;
  std::string_view value_name;  // N, SECONDS, MB
  double default_value;         // 0 where the description says what "not given" means
  double min;                   // seconds: 0 means >= 0, or > 0 when `above_min`
  double max;
  std::string_view description;
  bool above_min = false;
};

inline constexpr SimOption kNodesOption{
    "--nodes", "N",     0,
    1,         1 << 24, "Only the first N nodes of the trace offer holes (default: all)"};
inline constexpr SimOption kMaxRunningOption{
    "--max-running",
    "N",
    10,
    1,
    1 << 20,
    "Elastic jobs in Slurm at once; their users submit the rest as earlier ones end"};
inline constexpr SimOption kStartOption{
    "--start", "SECONDS", 0, 0, bounds::kMaxSeconds, "Start the window SECONDS into the trace"};
inline constexpr SimOption kDurationOption{"--duration",
                                           "SECONDS",
                                           0,
                                           0,
                                           bounds::kMaxSeconds,
                                           "Replay SECONDS (default: to the trace's end)",
                                           true};
inline constexpr SimOption kTimeLimitOption{"--time-limit",
                                            "SECONDS",
                                            core::kSolveTimeLimitS,
                                            0,
                                            bounds::kMaxTimeLimitS,
                                            "Solver time limit per decision, as gaptraind's",
                                            true};
inline constexpr SimOption kRepeatJobsOption{
    "--repeat-jobs",
    "SECONDS",
    0,
    0,
    bounds::kMaxSeconds,
    "Resubmit the job mix every SECONDS (0: once; 14400 for the example mix)"};
inline constexpr SimOption kMaxInputMbOption{
    "--max-input-mb",
    "MB",
    512,
    1,
    1 << 20,
    "Refuse an input file larger than this, gunzipped: a small .gz can inflate to gigabytes"};

// Every numeric option, in --help's order.
inline constexpr std::array kSimOptions = {kNodesOption,     kMaxRunningOption, kStartOption,
                                           kDurationOption,  kTimeLimitOption,  kRepeatJobsOption,
                                           kMaxInputMbOption};

}  // namespace gaptrain::sim
