// The largest values gaptrain accepts where numbers enter it (allocation JSON, registrations,
// sbatch options, simulator inputs). Each is far beyond any real cluster or job, and small
// enough that no product the allocator forms (a rate times a horizon times the jobs, a time
// limit in nanoseconds) can overflow. docs/allocator.md lists them.
#pragma once

#include <cstddef>

namespace gaptrain::bounds {

// Nodes in one job or one problem: more than any Slurm cluster has. A size beyond the cluster's
// own node count is clamped to it where that is the meaning (a job's maximum).
inline constexpr int kMaxNodes = 100'000;

// A node, user or job name: a host name is at most 253 bytes (DNS) and Slurm's are shorter.
inline constexpr std::size_t kMaxNameBytes = 255;

// A solver time limit: a day. (std::chrono's nanosecond clock overflows past 292 years.)
inline constexpr double kMaxTimeLimitS = 86'400.0;

// Horizons and rescale costs: ten years of seconds.
inline constexpr double kMaxSeconds = 315'360'000.0;

// A job's throughput: samples per second.
inline constexpr double kMaxSamplesPerS = 1e15;

// What one node of a job can process, as a job reports it (registration curves, progress): a
// billion samples a second, a thousand times a node of eight GPUs counting tokens. Beyond it a
// report is no measurement, and the allocator would hand that job every node.
inline constexpr double kMaxSamplesPerNodePerS = 1e9;

// A job's samples done, as its launcher reports them: a billion a second for thirty years.
inline constexpr double kMaxSamplesDone = 1e18;

// A job's work: its top throughput for ten years.
inline constexpr double kMaxWorkSamples = kMaxSamplesPerS * kMaxSeconds;

// A time in a trace: epoch seconds (node-event logs) or seconds into a log (SWF submit times),
// up to the year 2286. Beyond 2^53 a second is below a double's resolution, and the replay's
// one-second steps stand still (`gaptrain simulate` never returned).
inline constexpr double kMaxTraceTimeS = 1e10;

// A job's weight in the fair objective.
inline constexpr double kMaxWeight = 1e6;

// A global batch (samples a step), and a gradient noise scale (samples): beyond any model's.
inline constexpr int kMaxBatch = 1'000'000'000;
inline constexpr double kMaxNoiseScale = 1e15;

}  // namespace gaptrain::bounds
