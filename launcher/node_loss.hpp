// A node taken from the job while the steps run: a satellite cancelled or ended, one of the
// job's own nodes shrunk away, a failed node taken out of a --no-kill job. Slurm then kills the
// step there, and srun cannot start it again ("Requested node configuration is not available").
// gaptraind would say so at the next report, but it may not answer at that moment, and a node
// given back must never count as a failing step. So the launcher asks Slurm itself whether the
// allocation a step ran in still holds its node, and drops a node that is gone until the
// controller's instructions stop naming it in that allocation. Pure: Slurm's answers in,
// verdicts out.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "gaptrain/protocol.hpp"

namespace gaptrain::launch {

// Whether an allocation (the job, or the satellite a node was grown into) still holds a node.
enum class Holding {
  held,     // it runs there
  gone,     // it does not: the node was taken back
  unknown,  // Slurm did not answer
};

// The command that asks: the ids of the running jobs on `node`, one a line.
std::vector<std::string> holding_query(const std::string& node);

// Reads that command's answer: `answered` when it ran and exited 0, `ids` its output.
Holding holding_from_answer(bool answered, std::string_view ids, std::uint32_t allocation);

// The allocation a step on `node` runs in: its satellite, or the job itself.
std::uint32_t allocation_of(const protocol::LaunchInstruction& instruction, const std::string& node,
                            std::uint32_t job_id);

// How a step's program ended.
enum class StepExit {
  success,          // exit 0
  start_again,      // exit 75 (EX_TEMPFAIL): the helper asks to be started again (it rejoins, or
                    // the job goes on from its checkpoint): a regroup, not a failure
  failed_for_good,  // exit 76: the step gave up itself (gaptrain.torchrun after a crash that
                    // recurs without a resize): starting it again would only repeat it
  left,             // exit 77: the worker left the job, its node given back (asked by the job
                    // file, or SIGTERM from anyone: Slurm's GraceTime when it preempts a satellite)
  failure,          // anything else
};

// Exit status 75 is the helper's "start me again" (python/gaptrain/loop.py).
inline constexpr int kExitStartAgain = 75;
// Exit status 76 is a step's "failed for good: do not start me again"
// (python/gaptrain/torchrun.py).
inline constexpr int kExitFailedForGood = 76;
// Exit status 77 is the helper's "left the job: my node is given back" (python/gaptrain/group.py).
inline constexpr int kExitLeft = 77;

StepExit step_exit_of(int wait_status);

// As step_exit_of, for a step on the job's own node (`own`) or in a satellite. A command that
// is not the helper (it exits 77 itself) and that SIGTERM ended in a satellite the launcher did
// not ask to stop was ended by Slurm: a preemption's GraceTime, or the satellite's end. It left,
// as the helper would have: restarting it there only fails again.
StepExit exit_on(bool own, int wait_status);

// What a step that ended by itself (not asked to stop) means.
enum class StepEnd {
  finished,            // exit 0: the training is over
  taken_back,          // its node left the job: drop the node, the training goes on
  start_again,         // exit 75: start it again at once, counted as no failure
  restart,             // it failed: start it again after the backoff
  give_up,             // it failed too often in a row on a node still the job's, or for good
  ended_after_finish,  // it ended after the training finished elsewhere (e.g. a node that
                       // arrived as the training ended found no one to train with): no failure
};

// `failures_in_a_row` counts this failure too. Only a failure on a node not known to be gone
// counts: a node Slurm took is given back, whatever its step's exit status.
StepEnd judge_step_end(StepExit exit, bool finishing, Holding holding, int failures_in_a_row,
                       int max_restarts);

// Why a node was taken back, in the words of the launcher's line about it: a step that left
// cleanly because Slurm preempted its satellite prints Slurm's own "CANCELLED" or "Exited with
// exit code 77" lines just before, which read like a failure to a researcher; this says they
// are not. `allocation` is the satellite's id, or the job's own when `own`.
std::string why_taken_back(StepExit exit, int wait_status, bool own, std::uint32_t allocation);

// Nodes taken back, with the allocation that lost each.
using TakenBack = std::map<std::string, std::uint32_t>;

// `instruction` without the nodes in `taken` it still places in the allocation that lost them
// (a stale instruction, from before the controller saw the loss). An entry the instruction no
// longer places there is forgotten: the controller saw the loss, and a later grow onto the node
// (a new satellite) is followed. Drain requests are kept, so that a drain of a node taken back
// is acknowledged.
protocol::LaunchInstruction without_taken_back(const protocol::LaunchInstruction& instruction,
                                               TakenBack& taken, std::uint32_t job_id);

}  // namespace gaptrain::launch
