// When a step asked to leave gets SIGTERM. A training that follows the job file (the helper)
// leaves by itself: it ends or abandons its step and exits 0, and srun and slurmstepd print
// nothing. SIGTERM goes through Slurm (scancel --signal), which prints "*** STEP ... CANCELLED
// ***" into the job's output, so it is kept for a training that has not left while there is
// still time for it to leave on SIGTERM before gaptraind ends the step at the drain's deadline
// (the job file's notice for the node). Pure: times in, a wait out.
#pragma once

#include <chrono>
#include <optional>

namespace gaptrain::launch {

// Without a deadline, a training that leaves by itself gets this long before SIGTERM.
inline constexpr std::chrono::milliseconds kLeaveByItself{3000};
// SIGTERM goes out at the latest this long before the drain's deadline: the time a worker is
// given to leave on SIGTERM before gaptraind cancels the step (SIGKILL).
inline constexpr std::chrono::milliseconds kTermBeforeDeadline{1000};
// But never sooner than this after the request: the helper leaves within half a second of the
// job file naming its node (python/gaptrain: leave_within_s), and a SIGTERM before that only
// puts "CANCELLED" into the job's output. A reclaim learned late (a drain that reaches the
// launcher under a second before its deadline) sent SIGTERM at once, and 1 of 2 leavers printed
// it while leaving by itself 0.6 s after the request.
inline constexpr std::chrono::milliseconds kLeaveByItselfAtLeast{1000};

// How long after the stop request SIGTERM is sent to a training that leaves by itself:
// `deadline_in_s` is the time left to the drain's deadline (empty: none known), `grace` the
// launcher's own --grace-s (after which it kills the step itself).
std::chrono::milliseconds wait_before_term(std::optional<double> deadline_in_s,
                                           std::chrono::milliseconds grace);

}  // namespace gaptrain::launch
