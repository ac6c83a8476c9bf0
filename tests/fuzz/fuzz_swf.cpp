// The simulator's Standard Workload Format parser (controller/simulator/workload_io.cpp,
// `gaptrain simulate --swf`): parse_swf() on the whole input as the text of a log. Bad input must
// be a gaptrain::InputError; the jobs of an accepted log must be replayable as the header of
// workload_io.hpp promises, their times within bounds.hpp.
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "fuzz_check.hpp"
#include "gaptrain/bounds.hpp"
#include "gaptrain/input_error.hpp"
#include "simulator/workload_io.hpp"

using gaptrain::fuzz::check;
namespace bounds = gaptrain::bounds;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const gaptrain::sim::SwfLog log =
        gaptrain::sim::parse_swf(gaptrain::fuzz::as_text(data, size), "fuzz.swf");
    check(log.max_nodes >= 1, "machine size < 1");
    check(log.skipped >= 0, "negative skipped count");
    for (const gaptrain::sim::SwfJob& job : log.jobs) {
      check(job.nodes >= 1 && job.nodes <= log.max_nodes, "job size outside 1..max_nodes");
      // Within bounds.hpp's limits, so that no time the replay forms loses its seconds.
      check(job.submit_s >= 0.0 && job.submit_s <= bounds::kMaxTraceTimeS, "bad submit time");
      check(job.run_s > 0.0 && job.run_s <= bounds::kMaxSeconds, "bad run time");
      check(job.requested_s > 0.0 && job.requested_s <= bounds::kMaxSeconds, "bad requested time");
    }
  } catch (const gaptrain::InputError&) {
  }
  return 0;
}
