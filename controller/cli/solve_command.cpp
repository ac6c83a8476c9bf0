#include "solve_command.hpp"

#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>

#include "allocator/allocation_json.hpp"
#include "allocator/allocator.hpp"
#include "gaptrain/bounds.hpp"
#include "gaptrain/cli11.hpp"
#include "gaptrain/input_error.hpp"
#include "gaptrain/parse_number.hpp"
#include "gaptrain/text_file.hpp"
#include "one_line.hpp"

namespace gaptrain::cli {

namespace {

constexpr const char* kSolveHelp = R"(Input (keys not listed here are errors):
  {"horizon_s": 600,              optional, seconds the allocation is planned for
   "objective": "throughput",     optional: "throughput" | "speedup" | "fair"
   "fair_p": 0,                   optional: the fair objective's exponent, -4 to 1
   "nodes": [{"name": "n1",       required
              "job": null,        optional: id of the elastic job holding the node
              "hole_end_s": null  optional: seconds until the regular workload takes it back
             }],
   "jobs": [{"id": "j1", "min_nodes": 1, "max_nodes": 64,
             "curve": [[1, 2831.0], [2, 5259.0]],   [nodes, samples/s], nodes increasing
             "up_cost_s": 18, "down_cost_s": 12,    seconds of progress lost per grow/shrink
             "batch_host": "n1",  optional: a node the job holds (kept while it runs)
             "weight": 1.0        optional: share under objective "fair"
            }],
   "solver": {"time_limit_s": 10, "mip_gap": 1e-6, "max_hole_classes": 4,
              "max_core_options": 200000}}   optional

Output (stdout):
  {"status": "optimal" | "time_limit" | "infeasible" | "not_solved",
   "objective": ..., "best_bound": ..., "allocation": {"j1": ["n1", ...]}, "solve_ms": ...,
   "message": "..." (only when there is something to say, e.g. why the solver failed)}
  Each job's node list starts with its batch host.

Exit status:
  0  an allocation was found (status optimal or time_limit)
  1  the solver failed or found nothing (the result is still printed)
  2  the file cannot be read or the problem is invalid (one line on stderr, nothing on stdout))";

struct SolveOptions {
  std::string file;
  double time_limit_s = 0.0;
  CLI::Option* time_limit_option = nullptr;  // count() > 0 when --time-limit was given
  bool pretty = false;
};

// The most `gaptrain solve` reads: a problem of 100,000 nodes (bounds.hpp) is a few MB.
constexpr std::size_t kMaxProblemBytes = std::size_t{512} << 20U;

// The whole content of `path` (a regular file: text_file.hpp), or of stdin for "-". Throws
// FileRefused.
std::string read_input(const std::string& path) {
  if (path != "-") return read_regular_file(path, kMaxProblemBytes);
  std::string text;
  std::array<char, 1 << 16> buffer{};
  errno = 0;
  while (const std::size_t n = std::fread(buffer.data(), 1, buffer.size(), stdin)) {
    if (n > kMaxProblemBytes - text.size()) {
      throw FileRefused(std::make_error_code(std::errc::file_too_large), "<stdin>",
                        "larger than " + size_text(kMaxProblemBytes));
    }
    text.append(buffer.data(), n);
  }
  if (std::ferror(stdin)) {
    throw FileRefused(std::error_code(errno == 0 ? EIO : errno, std::generic_category()), "<stdin>",
                      std::generic_category().message(errno == 0 ? EIO : errno));
  }
  return text;
}

// CLI11's PositiveNumber would let "inf" through; the solver needs a real limit.
std::string check_seconds(const std::string& text) {
  const std::optional<double> value = parse_number<double>(text);
  if (!value || *value <= 0.0 || *value > bounds::kMaxTimeLimitS) {
    return "must be a finite number of seconds > 0 and at most 86400 (a day), got \"" + text + "\"";
  }
  return {};
}

int run_solve(const SolveOptions& options) {
  const std::string shown = options.file == "-" ? "<stdin>" : options.file;
  std::string text;
  try {
    text = read_input(options.file);
  } catch (const FileRefused& e) {
    report("solve", "cannot read \"" + shown + "\": " + e.reason());
    return kExitBadInput;
  }

  allocator::AllocationResult result;
  try {
    allocator::AllocationProblem problem = allocator::parse_problem(text);
    if (options.time_limit_option->count() > 0) {
      problem.solver.time_limit_s = options.time_limit_s;
    }
    result = allocator::allocate(problem);
  } catch (const InputError& e) {
    report("solve", shown + ": " + e.what());
    return kExitBadInput;
  }

  std::cout << allocator::to_json_text(allocator::result_to_json(result), options.pretty) << '\n'
            << std::flush;
  if (!std::cout) {
    report("solve", "cannot write the result to stdout");
    return kExitFailure;
  }
  if (result.call_status != allocator::CallStatus::ok) {
    report("solve", shown + ": solver failed: " + result.message);
    return kExitFailure;
  }
  if (result.model_status != allocator::ModelStatus::optimal &&
      result.model_status != allocator::ModelStatus::time_limit) {
    report("solve", shown + ": no allocation found: status " +
                        std::string(to_string(result.model_status)) +
                        (result.message.empty() ? "" : ": " + result.message));
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace

Command add_solve_command(CLI::App& parent) {
  auto options = std::make_shared<SolveOptions>();
  CLI::App* app = parent.add_subcommand(
      "solve",
      "Decide which nodes each elastic job gets: read an allocation problem as JSON, print the "
      "allocation as JSON");
  app->footer(kSolveHelp);
  app->add_option("FILE", options->file, "The problem as JSON; '-' reads it from stdin")
      ->required()
      ->type_name("");
  options->time_limit_option =
      app->add_option("--time-limit", options->time_limit_s,
                      "Stop the solver after SECONDS and return the best allocation found "
                      "(overrides the problem's solver.time_limit_s)")
          ->type_name("SECONDS")
          ->check(CLI::Validator(check_seconds, "", "finite positive seconds"));
  app->add_flag("--pretty", options->pretty, "Indent the result JSON instead of printing one line");
  return Command{app, [options] { return run_solve(*options); }};
}

}  // namespace gaptrain::cli
