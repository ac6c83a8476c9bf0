#include "node_loss.hpp"

#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <iterator>
#include <sstream>

#include "process.hpp"

namespace gaptrain::launch {

std::vector<std::string> holding_query(const std::string& node) {
  // Running only: a cancelled satellite is COMPLETING a while, and holds the node no longer.
  return {"squeue", "-h", "-t", "RUNNING", "-w", node, "-o", "%i"};
}

Holding holding_from_answer(bool answered, std::string_view ids, std::uint32_t allocation) {
  if (!answered) return Holding::unknown;
  std::istringstream lines{std::string(ids)};
  const std::string wanted = std::to_string(allocation);
  for (std::string id; lines >> id;) {
    if (id == wanted) return Holding::held;
  }
  return Holding::gone;
}

std::uint32_t allocation_of(const protocol::LaunchInstruction& instruction, const std::string& node,
                            std::uint32_t job_id) {
  const auto satellite = instruction.allocations.find(node);
  return satellite == instruction.allocations.end() ? job_id : satellite->second;
}

StepExit step_exit_of(int wait_status) {
  if (!WIFEXITED(wait_status)) return StepExit::failure;
  switch (WEXITSTATUS(wait_status)) {
    case 0: return StepExit::success;
    case kExitStartAgain: return StepExit::start_again;
    case kExitFailedForGood: return StepExit::failed_for_good;
    case kExitLeft: return StepExit::left;
    default: return StepExit::failure;
  }
}

StepExit exit_on(bool own, int wait_status) {
  const bool terminated = (WIFSIGNALED(wait_status) && WTERMSIG(wait_status) == SIGTERM) ||
                          (WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 128 + SIGTERM);
  return !own && terminated ? StepExit::left : step_exit_of(wait_status);
}

StepEnd judge_step_end(StepExit exit, bool finishing, Holding holding, int failures_in_a_row,
                       int max_restarts) {
  // Slurm ends the steps of a node it takes, and srun may then exit 0 ("Node failure"): an end
  // on a node gone from the job says nothing about the training.
  // A worker that left by itself without being asked here left because its node goes: Slurm
  // preempting a satellite sends SIGTERM and holds the node for its GraceTime meanwhile.
  if (holding == Holding::gone || exit == StepExit::left) return StepEnd::taken_back;
  if (exit == StepExit::success) return StepEnd::finished;
  // The training's outcome was decided where it finished; a worker that ends afterwards, with
  // whatever status, could not change it (torchrun on a node that joined as the rendezvous
  // closed exits 1).
  if (finishing) return StepEnd::ended_after_finish;
  if (exit == StepExit::start_again) return StepEnd::start_again;
  if (exit == StepExit::failed_for_good) return StepEnd::give_up;
  return failures_in_a_row > max_restarts ? StepEnd::give_up : StepEnd::restart;
}

std::string why_taken_back(StepExit exit, int wait_status, bool own, std::uint32_t allocation) {
  const std::string holder =
      own ? std::string("the job") : "its satellite " + std::to_string(allocation);
  if (exit == StepExit::left && !own) {
    return holder +
           " was ended by Slurm (preempted for a regular job, or cancelled) and its worker left "
           "cleanly; Slurm's CANCELLED or \"exit code 77\" lines about it are that, not a failure";
  }
  return holder + " no longer holds it; its step ended with " + describe_status(wait_status);
}

protocol::LaunchInstruction without_taken_back(const protocol::LaunchInstruction& instruction,
                                               TakenBack& taken, std::uint32_t job_id) {
  const auto names = [&](const std::string& node, std::uint32_t allocation) {
    return std::find(instruction.nodes.begin(), instruction.nodes.end(), node) !=
               instruction.nodes.end() &&
           allocation_of(instruction, node, job_id) == allocation;
  };
  for (auto entry = taken.begin(); entry != taken.end();) {
    entry = names(entry->first, entry->second) ? std::next(entry) : taken.erase(entry);
  }
  protocol::LaunchInstruction kept = instruction;
  kept.nodes.clear();
  for (const std::string& node : instruction.nodes) {
    if (taken.count(node) == 0) {
      kept.nodes.push_back(node);
    } else {
      kept.allocations.erase(node);
    }
  }
  return kept;
}

}  // namespace gaptrain::launch
