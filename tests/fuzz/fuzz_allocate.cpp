// The allocator on untrusted problems (controller/allocator, `gaptrain solve`): parse_problem()
// on the whole input as allocation JSON, then allocate() with a time limit of at most 50 ms.
// Bad input must be a gaptrain::InputError. An accepted problem must get a feasible answer (each
// node given at most once, every job listed with 0 or [min, max] nodes, no migration, batch hosts
// kept: evaluate.hpp's infeasibility()) with a finite objective not above its bound, and the
// call must end near its limit: more than ten times the limit plus a second is a finding.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "allocator/allocation_json.hpp"
#include "allocator/allocator.hpp"
#include "allocator/model/evaluate.hpp"
#include "fuzz_check.hpp"
#include "gaptrain/input_error.hpp"

using gaptrain::fuzz::check;

namespace {
constexpr double kTimeLimitS = 0.05;
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  gaptrain::allocator::AllocationProblem problem;
  try {
    problem = gaptrain::allocator::parse_problem(gaptrain::fuzz::as_text(data, size));
  } catch (const gaptrain::InputError&) {
    return 0;
  }
  problem.solver.time_limit_s = std::min(problem.solver.time_limit_s, kTimeLimitS);
  const auto start = std::chrono::steady_clock::now();
  const gaptrain::allocator::AllocationResult result =
      gaptrain::fuzz::must_succeed([&] { return gaptrain::allocator::allocate(problem); },
                                   "allocate() threw on a parsed problem");
  const double elapsed_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (elapsed_s > 10.0 * problem.solver.time_limit_s + 1.0) {
    gaptrain::fuzz::fail("allocate() overran its time limit",
                         (std::to_string(elapsed_s) + " s against " +
                          std::to_string(problem.solver.time_limit_s) + " s")
                             .c_str());
  }
  check(result.call_status == gaptrain::allocator::CallStatus::ok,
        "allocate() failed on a valid problem");
  check(result.allocation.size() == problem.jobs.size(), "not every job is listed");
  if (const std::optional<std::string> why =
          gaptrain::allocator::infeasibility(problem, result.allocation)) {
    gaptrain::fuzz::fail("infeasible allocation", why->c_str());
  }
  check(std::isfinite(result.objective), "objective not finite");
  check(result.best_bound >= result.objective - 1e-6 * std::max(1.0, std::abs(result.objective)),
        "objective above its bound");
  return 0;
}
