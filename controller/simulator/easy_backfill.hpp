// Replays an SWF log on a machine of `max_nodes` nodes with FCFS + EASY backfill driven by the
// requested times, as the log's own scheduler did, and turns the schedule into a hole trace:
// which node is free when, when the backfill plan says each hole ends (predicted), and when it
// really ends (actual). Pure: plain structs in, plain structs out.
#pragma once

#include "simulator/trace.hpp"
#include "simulator/workload_io.hpp"

namespace gaptrain::sim {

struct ReplayOptions {
  // How far ahead the plan looks, like Slurm's bf_window: a hole whose planned end lies
  // further away (or that no planned job needs) has predicted end kUnknownEnd.
  double plan_window_s = 86400.0;
  // At most this many queued jobs are planned per event, like Slurm's bf_max_job_test.
  int plan_max_jobs = 100;
};

// Scheduling (what really happens): jobs are queued in submit order; at every submit and end,
// queued jobs start in FCFS order while enough nodes are free; then the head job gets a
// reservation at its shadow time (the earliest time enough nodes are free, using running jobs'
// requested ends), and later jobs are backfilled when they fit now and either end (by their
// requested time) before the shadow time or use only nodes the head will not need. A job runs
// for min(run, requested) seconds (a scheduler kills jobs at their limit) on the lowest-index
// free nodes.
//
// Prediction (what the plan says, what Slurm's backfill shows as start_time/sched_nodes): after
// every event, queued jobs are planned in order on each node's planned free time (now for free
// nodes, start + requested for busy ones); each gets the lowest-index nodes free at its
// earliest start. A free node's predicted hole end is the earliest planned start of a job given
// that node. The trace holds an update whenever a node's state or predicted end changes.
//
// Time 0 of the trace is the first job's submit; the trace ends when the last job ends.
//
// Details the tests pin down:
// * Nodes are "n1".."n4" on 4 nodes, "n001".."n100" on 100: 1-based, zero-padded to the width
//   of max_nodes.
// * At one time, jobs end first, then jobs arrive (equal submit times in file order), then one
//   scheduling pass and one plan. A step holds the net change (a node freed and taken again at
//   the same time has no update), in node order; times with no change have no step.
// * A predicted end is kUnknownEnd when none of the first plan_max_jobs queued jobs is planned
//   on the node, or the one that is starts after now + plan_window_s; otherwise it lies after
//   the step's time (every job that fits now without delaying the head has just started).
//
// Throws InputError when max_nodes < 1, an option is out of range, or a job cannot run (nodes
// outside 1..max_nodes, run or requested time not > 0); parse_swf leaves such records out.
HoleTrace replay_easy_backfill(const SwfLog& log, const ReplayOptions& options = {});

}  // namespace gaptrain::sim
