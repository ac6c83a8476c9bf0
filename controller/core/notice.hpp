// Notice of a node an elastic job will lose (docs/resizing.md, "Notice"): gaptraind
// tells the job's launcher, in its LaunchInstruction, each of its nodes it knows will be taken
// and when, so that the training can checkpoint or regroup before the drain request comes. Pure:
// what gaptraind knows in, the notices due now out; the Resizer keeps them and journals changes.
//
// A node is known to go when
//  - it is being drained (a reclaim for a waiting regular job, the allocator's own shrink, a
//    requeue): at the drain's deadline, whatever the job's window (what time remains: a drain
//    is never held back for a notice, nor is a reclaim);
//  - the reclaim will take it for a pending regular job backfill plans (reclaim_takeovers: not
//    always the node the plan names; a planned batch host has a stand-in): at that job's start,
//    told once it is within the job's window. The lease is never renewed past that start, so the
//    node goes by then at the latest (earlier when its reclaim comes first: the drain's deadline
//    then replaces it).
// A notice whose plan changed (the regular job started elsewhere, was cancelled, moved later than
// the window) is withdrawn: the node is no longer in the instruction's notice.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "core/elastic_jobs.hpp"
#include "core/notes.hpp"

namespace gaptrain::core {

// One node's notice: the Unix time (s) it will be taken, and why.
struct NodeNotice {
  double at = 0.0;
  std::string reason;

  friend bool operator==(const NodeNotice&, const NodeNotice&) = default;
};

// node -> its notice, per elastic job.
using Notices = std::map<std::uint32_t, std::map<std::string, NodeNotice>>;

// How far ahead `job` is told of a planned takeover: what it asked (--elastic-notice), else
// kDefaultNoticeS, at most `max_notice_s`.
double notice_window_s(const ElasticJob& job, double max_notice_s);

// The notices due at `now_wall` (Unix s). `leaving`: every node being drained, with the Unix time
// its drain ends by (its deadline); `takeovers`: reclaim_takeovers(). Only nodes the jobs hold
// now; none at all when `max_notice_s` is 0 (notices off).
Notices due_notices(const ElasticJobs& jobs, const std::map<std::string, double>& leaving,
                    const std::map<std::string, std::int64_t>& takeovers, double now_wall,
                    double max_notice_s);

// The journal lines for going from `before` to `after` (ACTION=notice): a notice given (a node
// new to it, or its time moved by a second or more), and a notice withdrawn (a node still held
// whose plan changed). A node that left its job needs no line: its notice came true. `now_wall`
// gives each line its IN_S (seconds from now).
Notes notice_changes(const Notices& before, const Notices& after, const ElasticJobs& jobs,
                     double now_wall);

// `after`, keeping the time of a notice already given where it moved by less than a second: the
// drain deadline's wall time is recomputed at every poll, and the launcher must not see it jitter.
Notices steady_notices(const Notices& before, Notices after);

}  // namespace gaptrain::core
