#include "reconcile.hpp"

#include <algorithm>
#include <cmath>

namespace gaptrain::launch {

namespace {

bool contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

}  // namespace

Actions reconcile(const std::vector<StepView>& steps,
                  const protocol::LaunchInstruction& instruction, bool finishing) {
  const auto wanted = [&](const std::string& node) {
    return contains(instruction.nodes, node) && !contains(instruction.drain, node);
  };
  const auto step_on = [&](const std::string& node) -> const StepView* {
    const auto it =
        std::find_if(steps.begin(), steps.end(), [&](const StepView& s) { return s.node == node; });
    return it == steps.end() ? nullptr : &*it;
  };

  Actions actions;
  // Starts follow the instruction's order, so the batch host's step (the rendezvous host)
  // starts first.
  for (const std::string& node : instruction.nodes) {
    if (finishing || !wanted(node)) continue;
    const StepView* step = step_on(node);
    if (step == nullptr || (step->phase == StepPhase::waiting && step->restart_due)) {
      actions.start.push_back(node);
    }
  }
  for (const StepView& step : steps) {
    switch (step.phase) {
      case StepPhase::running:
        // A node gone from `nodes` was removed by Slurm, which kills its step anyway; stopping it
        // ourselves keeps the bookkeeping in one place.
        if (!wanted(step.node)) actions.stop.push_back(step.node);
        break;
      case StepPhase::waiting:
        if (finishing || !wanted(step.node)) actions.forget.push_back(step.node);
        break;
      case StepPhase::done:
        // Slurm takes a failed node out of a --no-kill job, and srun then exits 0 for its step
        // ("Node failure"): a step that ended on a node no longer in the job was lost with it,
        // not a finished training.
        if (!contains(instruction.nodes, step.node)) actions.forget.push_back(step.node);
        break;
      case StepPhase::stopping: break;
    }
  }
  for (const std::string& node : instruction.drain) {
    const StepView* step = step_on(node);
    if (step == nullptr || step->phase == StepPhase::done || step->phase == StepPhase::waiting) {
      actions.drained.push_back(node);
    }
  }
  return actions;
}

std::vector<std::string> wanted_nodes(const protocol::LaunchInstruction& instruction) {
  std::vector<std::string> nodes;
  for (const std::string& node : instruction.nodes) {
    if (std::find(instruction.drain.begin(), instruction.drain.end(), node) ==
        instruction.drain.end()) {
      nodes.push_back(node);
    }
  }
  return nodes;
}

std::vector<std::string> live_nodes(const std::vector<StepView>& steps) {
  std::vector<std::string> live;
  for (const StepView& step : steps) {
    if (step.phase == StepPhase::running || step.phase == StepPhase::stopping) {
      live.push_back(step.node);
    }
  }
  return live;
}

std::vector<std::string> notices_to_tell(std::map<std::string, double>& told,
                                         const std::map<std::string, double>& notice) {
  std::vector<std::string> fresh;
  std::map<std::string, double> told_now;
  for (const auto& [node, at] : notice) {
    const auto before = told.find(node);
    if (before == told.end() || std::abs(before->second - at) >= 1.0) {
      fresh.push_back(node);
      told_now[node] = at;
    } else {
      told_now[node] = before->second;
    }
  }
  told = std::move(told_now);
  return fresh;
}

}  // namespace gaptrain::launch
