// `gaptrain simulate`'s default output: the run's summary as a short aligned table a person reads
// first (docs/simulator.md, "Outputs"); `--json` gives the same run as JSON for scripts. Pure
// formatting, apart from the replay, so tests check the text.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "simulator/simulator.hpp"

namespace gaptrain::sim {

// What the table says about the run beyond its SimSummary.
struct RunFacts {
  std::string trace;     // the trace's name, as the JSON's parameters.trace
  std::string policy;    // gaptrain | bftrainer | equal-share
  std::string settings;  // what the policy ran with, e.g. "speedup, horizon 120 s"
  bool learn = false;    // the allocator learned the curves instead of being told them
  std::string batch;     // with --models: the batch rule (adaptive | per-node | global)
  int nodes = 0;         // the nodes replayed (--nodes, or the trace's)
  double start_s = 0.0;  // the window's start, from the trace's
  double wall_s = 0.0;   // the replay's wall-clock time
};

// The oracle bound, when it was computed (--oracle).
struct OracleFacts {
  double samples = 0.0;
  std::string method;  // "per-job LP" | "per-model LP"
};

// The tables' note on "usable" (this one and --compare's).
inline constexpr std::string_view kUsableNote =
    "usable: allocated / the hole node-time the jobs in Slurm could have held.\n";

// Seconds as a person reads them, in the unit that keeps the number short: "45 s", "12.5 min",
// "3.2 h", "30 days".
std::string duration_text(double seconds);

// `value` with `decimals` digits after the point and thousands grouped: "12,345.6".
std::string grouped(double value, int decimals);

// The table: a title line, then one "label  value" line each, labels aligned, every value with
// its unit; ends with a newline.
std::string summary_table(const SimSummary& summary, const RunFacts& facts,
                          const std::optional<OracleFacts>& oracle);

}  // namespace gaptrain::sim
