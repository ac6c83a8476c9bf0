// gaptraind's state file decoder (controller/daemon/state_file.cpp, read at every start): the
// whole input as the file's content to decode_state(), then what the daemon does with it at its
// first poll: the jobs restored (ElasticJobs::add, restore_learned) and a plan made. A file that
// is not a state must be a gaptrain::InputError; inside one, a bad entry is dropped, never
// thrown. What is kept must keep the decoder's promises (unique jobs, learned curves the
// allocator accepts with a 1-node rate > 0, finite costs), survive encode -> decode exactly,
// and never stop the plan: a state that makes every plan throw is a gaptraind that exits at
// every start.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "core/elastic_jobs.hpp"
#include "core/holes.hpp"
#include "core/planner.hpp"
#include "fuzz_check.hpp"
#include "gaptrain/input_error.hpp"
#include "gaptrain/scaling_curve.hpp"
#include "state_file.hpp"

namespace core = gaptrain::core;
namespace daemon = gaptrain::daemon;
using gaptrain::fuzz::check;
using gaptrain::fuzz::must_succeed;

namespace {

constexpr std::int64_t kNow = 1'700'000'000;
// The plan runs on a small cluster: node i (from 1) held by the i-th restored job.
constexpr int kNodes = 8;
// The allocator's tables grow with max_nodes (bounded elsewhere); jobs
// wider than this are restored and checked, but left out of the plan to keep runs fast.
constexpr int kMaxPlannedNodes = 64;

void check_kept(const core::SavedState& state) {
  std::set<std::uint32_t> ids;
  for (const core::SavedJob& job : state.jobs) {
    check(ids.insert(job.registration.job_id).second, "a job kept twice");
    check(job.registration.job_id != 0, "a job id 0 kept");
    if (job.learned_curve) {
      // Rebuilt from its points: what the decoder kept passes ScalingCurve's rule.
      const std::vector<gaptrain::ScalingCurve::Point>& points = job.learned_curve->points();
      const gaptrain::ScalingCurve curve = must_succeed(
          [&] { return gaptrain::ScalingCurve(points); }, "a kept learned curve is not a curve");
      check(curve.at(1.0) > 0.0, "a kept learned curve has no 1-node throughput");
    }
    if (job.learned_costs) {
      const auto [up, down] = *job.learned_costs;
      check(std::isfinite(up) && up >= 0.0 && std::isfinite(down) && down >= 0.0,
            "kept learned costs are not finite seconds >= 0");
    }
  }
}

// Daemon::load_state, then the first plan.
void restore_and_plan(const core::SavedState& state) {
  core::Snapshot snapshot;
  snapshot.taken_at = kNow;
  core::ElasticJobs jobs;
  for (const core::SavedJob& saved : state.jobs) {
    if (snapshot.jobs.size() == kNodes) break;
    if (saved.registration.max_nodes > kMaxPlannedNodes) continue;
    const std::string node = "n" + std::to_string(snapshot.jobs.size() + 1);
    core::Job job;
    job.id = saved.registration.job_id;
    job.user_id = saved.uid;
    job.user = saved.registration.user;
    job.partition = "elastic";
    job.state = core::JobState::running;
    job.nodes = {node};
    job.batch_host = node;
    job.start_time = kNow - 60;
    job.end_time = kNow + 3600;
    snapshot.jobs.push_back(job);
    if (jobs.add(saved.registration, &snapshot.jobs.back(), "elastic", saved.registered_at))
      continue;
    jobs.restore_learned(job.id, saved.learned_curve, saved.learned_costs);
  }
  for (int i = 1; i <= kNodes; ++i) {
    const bool held = static_cast<std::size_t>(i) <= snapshot.jobs.size();
    snapshot.nodes.push_back({"n" + std::to_string(i),
                              held ? core::NodeState::allocated : core::NodeState::idle,
                              kNow - 600});
  }
  std::vector<core::ElasticJob> elastic;
  for (const auto& [id, job] : jobs.jobs()) elastic.push_back(job);
  core::PlannerSettings settings;
  settings.solver.time_limit_s = 0.05;
  must_succeed(
      [&] { return core::plan(snapshot, core::find_holes(snapshot), elastic, kNow, settings); },
      "the restored state stops the plan");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = gaptrain::fuzz::as_text(data, size);
  daemon::DecodedState decoded;
  try {
    decoded = daemon::decode_state(text);
  } catch (const gaptrain::InputError&) {
    return 0;
  }
  for (const daemon::DroppedEntry& dropped : decoded.dropped) {
    check(!dropped.field.empty() && !dropped.reason.empty(), "a dropped entry without a reason");
  }
  check_kept(decoded.state);

  const std::string encoded = daemon::encode_state(decoded.state);
  const daemon::DecodedState again =
      must_succeed([&] { return daemon::decode_state(encoded); }, "decode(encode(state)) failed");
  check(again.dropped.empty(), "decode(encode(state)) drops an entry");
  check(again.state == decoded.state, "decode(encode(state)) differs from the state");
  check(daemon::encode_state(again.state) == encoded, "the encoding is not a fixed point");

  restore_and_plan(decoded.state);
  return 0;
}
