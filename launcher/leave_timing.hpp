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

// How long after the stop request SIGTERM is sent to a training that leaves by itself:
// `deadline_in_s` is the time left to the drain's deadline (empty: none known), `grace` the
// launcher's own --grace-s (after which it kills the step itself).
std::chrono::milliseconds wait_before_term(std::optional<double> deadline_in_s,
                                           std::chrono::milliseconds grace);

}  // namespace gaptrain::launch
