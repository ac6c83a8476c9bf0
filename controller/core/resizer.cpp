#include "core/resizer.hpp"

#include <algorithm>
#include <cmath>

#include "core/job_mark.hpp"
#include "core/node_list.hpp"
#include "core/parking.hpp"

namespace gaptrain::core {

namespace {

// The longest nodes released for a waiting regular job are kept out of the allocator's holes
// while it is still pending: Slurm starts it at its next scheduling pass, within seconds.
constexpr double kPromiseS = 15.0;

Note started(const Action& action, const std::vector<std::string>& nodes) {
  return Note{NoteLevel::info,
              "action started",
              {{"ACTION", to_string(action.kind)},
               {"JOB_ID", action.job_id},
               {"NODES", join_nodes(nodes)},
               {"REASON", action.reason}}};
}

Note done(std::string_view kind, std::uint32_t job_id, const std::vector<std::string>& nodes) {
  return Note{NoteLevel::info,
              "action done",
              {{"ACTION", kind}, {"JOB_ID", job_id}, {"NODES", join_nodes(nodes)}}};
}

// An admitted job Slurm has yet to start: made eligible (neither held nor parked again), still
// pending.
bool awaiting_start(const Job* job, std::int64_t now) {
  return job != nullptr && job->state == JobState::pending && !waits_for_admission(*job, now);
}

}  // namespace

void Resizer::note(NoteLevel level, std::string_view message,
                   std::initializer_list<NoteField> fields) {
  notes_.push_back(Note{level, std::string(message), fields});
}

bool Resizer::busy(std::uint32_t job_id, const Now& now) const {
  if (drains_.contains(job_id)) return true;
  const auto backoff = backoffs_.find(job_id);
  return backoff != backoffs_.end() && now.mono < backoff->second.retry_at;
}

bool Resizer::apply(const Plan& plan, const Snapshot& snapshot, ElasticJobs& jobs, const Now& now) {
  bool changed = false;
  for (const Action& action : plan.actions) {
    const auto drain = drains_.find(action.job_id);
    if (drain != drains_.end() && action.waiting_job != 0) {
      // A reclaim while the job drains for another reason: the waiting job comes first, so the
      // drain grows and its deadline becomes the reclaim's.
      PendingDrain& pending = drain->second;
      for (const std::string& node : action.drain) {
        if (!contains(pending.drain, node)) pending.drain.push_back(node);
      }
      pending.keep = action.nodes;
      pending.kind = action.kind;
      pending.waiting_job = action.waiting_job;
      pending.serve(action);
      pending.reason = action.reason;
      pending.deadline = std::min(pending.deadline, now.mono + settings_.reclaim_grace_s);
      continue;
    }
    // A reclaim goes ahead despite a backoff: it is the retry, and a regular job waits.
    if (action.waiting_job == 0 && busy(action.job_id, now)) continue;
    switch (action.kind) {
      case ActionKind::grow: changed |= grow(action, snapshot, jobs, now); break;
      case ActionKind::admit: changed |= admit(action, snapshot, now); break;
      case ActionKind::shrink:
      case ActionKind::requeue: request_drain(action, jobs, now); break;
    }
  }
  return changed;
}

bool Resizer::grow(const Action& action, const Snapshot& snapshot, ElasticJobs& jobs,
                   const Now& now) {
  const Job* job = find_job(snapshot, action.job_id);
  const auto managed = jobs.jobs().find(action.job_id);
  if (job == nullptr || managed == jobs.jobs().end()) return false;
  notes_.push_back(started(action, action.nodes));
  // The satellites ask for the node type they are of: Slurm keeps its own account.
  const auto first = action.nodes.empty()
                         ? snapshot.nodes.end()
                         : std::ranges::find(snapshot.nodes, action.nodes.front(), &Node::name);
  const bool typed = first != snapshot.nodes.end() && !first->type.empty();
  const GrowResult result = slurm_.grow(GrowRequest{
      .job_id = action.job_id,
      .partition =
          settings_.satellite_partition.empty() ? job->partition : settings_.satellite_partition,
      .add_nodes = action.nodes,
      .user_id = job->user_id,
      .group_id = job->group_id,
      .time_limit_minutes = first_lease_minutes(action.hole_end, now),
      .account = job->account,
      .qos = settings_.satellite_qos.empty() ? job->qos : settings_.satellite_qos,
      .tres_per_node = typed ? satellite_tres(job->tres_per_node, first->type, first->type_source)
                             : job->tres_per_node,
      .constraint = typed && first->type_source == NodeTypeSource::feature ? first->type : "",
      .reservation = settings_.satellite_reservation});
  if (!result.ok) {
    failed(action.job_id, action.kind, "grow", result.error, action.nodes, now);
    return false;
  }
  notes_.push_back(done("grow", action.job_id, action.nodes));
  succeeded(action.job_id, "grow");
  // The launcher hears of the new nodes at its next report, before the next poll.
  std::vector<std::string> nodes = managed->second.nodes;
  std::map<std::string, std::uint32_t> satellites = managed->second.satellites;
  for (const auto& [node, satellite] : result.satellites) {
    if (!contains(nodes, node)) nodes.push_back(node);
    satellites[node] = satellite;
  }
  resizes_.push_back({action.job_id, ResizeRecord{static_cast<double>(now.wall), ResizeKind::grow,
                                                  action.reason, nodes}});
  jobs.resized(action.job_id, std::move(nodes), std::move(satellites), now.mono);
  return true;
}

std::uint32_t Resizer::first_lease_minutes() const {
  return static_cast<std::uint32_t>(std::max(1.0, std::ceil(settings_.lease_s / 60.0)));
}

std::uint32_t Resizer::first_lease_minutes(std::int64_t hole_end, const Now& now) const {
  const std::uint32_t lease = first_lease_minutes();
  if (hole_end <= 0) return lease;
  // Whole minutes that end before the hole does (at least one: Slurm's smallest limit).
  const auto minutes = std::max<std::int64_t>(1, (hole_end - now.wall) / 60);
  return static_cast<std::uint32_t>(std::min<std::int64_t>(lease, minutes));
}

bool Resizer::admit(const Action& action, const Snapshot& snapshot, const Now& now) {
  // The limit it was submitted with caps its leases; admission replaces it with the first. It
  // is kept in the job's own record too (job_mark.hpp), for a gaptraind without its state file.
  // At home (home.hpp) it holds no training node by its own limit: it keeps that limit, and
  // only its satellites are leased.
  const bool home = !settings_.home_partition.empty();
  std::string admin_comment;
  bool held = true;  // a job no longer listed: the admission's release is harmless
  std::uint32_t limit = 0;
  if (const Job* job = find_job(snapshot, action.job_id)) {
    JobMark mark = admission_mark(*job);
    if (home) {
      mark.trains_in = job->partition;
      mark.tres_per_node = job->tres_per_node;
    }
    limit = mark.time_limit_minutes.value_or(0);
    user_limits_.emplace(action.job_id, limit);
    admin_comment = with_job_mark(job->admin_comment, mark);
    held = job->held;
  }
  notes_.push_back(started(action, action.nodes));
  const ActionResult result = slurm_.admit(
      AdmitRequest{.job_id = action.job_id,
                   .nodes = action.nodes,
                   .time_limit_minutes = home ? limit : first_lease_minutes(action.hole_end, now),
                   .admin_comment = std::move(admin_comment),
                   .held = held,
                   .home_partition = settings_.home_partition});
  if (!result.ok) {
    failed(action.job_id, action.kind, "admit", result.error, action.nodes, now);
    return false;
  }
  notes_.push_back(done("admit", action.job_id, action.nodes));
  succeeded(action.job_id, "admit");
  resizes_.push_back({action.job_id, ResizeRecord{static_cast<double>(now.wall), ResizeKind::admit,
                                                  action.reason, action.nodes}});
  admitted_[action.job_id] = Admission{now.mono + settings_.admit_start_s, action.nodes};
  if (action.overtakes != 0) {
    overtook_[action.job_id] = action.overtakes;
  } else {
    overtook_.erase(action.job_id);
  }
  // Slurm starts it at its next scheduling pass; until the job shows up running, it is not
  // admitted again elsewhere.
  backoffs_[action.job_id] =
      Backoff{ActionKind::admit, "admitted, waiting for Slurm to start it", 0,
              now.mono + settings_.reclaim_grace_s + settings_.retry_max_s / 6.0};
  return true;
}

void Resizer::request_drain(const Action& action, const ElasticJobs& jobs, const Now& now) {
  const auto managed = jobs.jobs().find(action.job_id);
  if (managed == jobs.jobs().end() || action.drain.empty()) return;
  PendingDrain drain;
  drain.kind = action.kind;
  drain.keep = action.nodes;
  drain.drain = action.drain;
  drain.reason = action.reason;
  drain.waiting_job = action.waiting_job;
  drain.serve(action);
  drain.requested_at = now.mono;
  const double grace =
      action.waiting_job != 0 ? settings_.reclaim_grace_s : settings_.drain_grace_s;
  // A job whose launcher never reported cannot ack: nothing to wait for.
  drain.deadline = managed->second.reported_at ? now.mono + grace : now.mono;
  for (const std::string& node : action.drain) {
    if (action.waiting_job != 0) {
      note(NoteLevel::info, "reclaim needed",
           {{"JOB_ID", action.job_id}, {"NODE", node}, {"WAITING_JOB", drain.going_to(node)}});
    }
  }
  note(NoteLevel::info, "drain requested",
       {{"ACTION", to_string(action.kind)},
        {"JOB_ID", action.job_id},
        {"NODES", join_nodes(action.drain)},
        {"GRACE_S", seconds_text(drain.deadline - now.mono)},
        {"REASON", action.reason}});
  drains_[action.job_id] = std::move(drain);
}

void Resizer::hurry(const std::vector<std::pair<std::string, std::uint32_t>>& reclaim,
                    const Now& now) {
  for (auto& [job_id, drain] : drains_) {
    if (drain.waiting_job != 0) continue;
    for (const auto& [node, waiting] : reclaim) {
      if (!contains(drain.drain, node)) continue;
      drain.waiting_job = waiting;
      drain.waiting_jobs.insert(waiting);
      drain.goes_to[node] = waiting;
      drain.deadline = std::min(drain.deadline, now.mono + settings_.reclaim_grace_s);
      note(NoteLevel::info, "reclaim needed",
           {{"JOB_ID", job_id}, {"NODE", node}, {"WAITING_JOB", waiting}});
    }
  }
}

bool Resizer::advance(ElasticJobs& jobs, const Now& now) {
  bool changed = false;
  for (auto it = drains_.begin(); it != drains_.end();) {
    const std::uint32_t job_id = it->first;
    const PendingDrain& drain = it->second;
    const auto managed = jobs.jobs().find(job_id);
    if (managed == jobs.jobs().end()) {  // ended meanwhile: nothing left to do
      it = drains_.erase(it);
      continue;
    }
    const ElasticJob& job = managed->second;
    const bool let_go = std::all_of(drain.drain.begin(), drain.drain.end(), [&](const auto& n) {
      return contains(job.drained, n) || (job.reported_at && !contains(job.running, n));
    });
    // Only a failed drain backs off a drain: a grow that failed or an admission that Slurm is
    // starting must not hold up nodes a regular job waits for.
    const auto backoff = backoffs_.find(job_id);
    const bool backing_off =
        backoff != backoffs_.end() && now.mono < backoff->second.retry_at &&
        (backoff->second.kind == ActionKind::shrink || backoff->second.kind == ActionKind::requeue);
    if ((!let_go && now.mono < drain.deadline) || backing_off) {
      ++it;
      continue;
    }
    if (finish_drain(job_id, drain, jobs, now)) {
      changed = true;
      it = drains_.erase(it);
    } else {
      ++it;  // backing off; retried at retry_at
    }
  }
  return changed;
}

bool Resizer::finish_drain(std::uint32_t job_id, const PendingDrain& drain, ElasticJobs& jobs,
                           const Now& now) {
  const ElasticJob& job = jobs.jobs().at(job_id);
  const std::string_view kind = to_string(drain.kind);
  note(NoteLevel::info, "action started",
       {{"ACTION", kind},
        {"JOB_ID", job_id},
        {"NODES", join_nodes(drain.drain)},
        {"KEEP", join_nodes(drain.keep)},
        {"REASON", drain.reason}});
  // Satellites first: ending them is an ordinary job end. A requeue lets go of all of them.
  std::vector<std::uint32_t> satellites;
  std::map<std::string, std::uint32_t> kept_satellites;
  for (const auto& [node, satellite] : job.satellites) {
    if (drain.kind == ActionKind::requeue || contains(drain.drain, node)) {
      satellites.push_back(satellite);
    } else {
      kept_satellites[node] = satellite;
    }
  }
  ActionResult result{true, ""};
  if (!satellites.empty()) result = slurm_.release(satellites);
  if (result.ok && drain.kind == ActionKind::requeue) {
    result = slurm_.requeue(job_id);
  } else if (result.ok) {
    // The job's own nodes it lets go of (Slurm's shrink), if any.
    std::vector<std::string> own_keep;
    bool own_lost = false;
    for (const std::string& node : job.nodes) {
      if (job.satellites.contains(node)) continue;
      if (contains(drain.drain, node)) {
        own_lost = true;
      } else {
        own_keep.push_back(node);
      }
    }
    if (own_lost) {
      result = slurm_.shrink(
          ShrinkRequest{.job_id = job_id, .batch_host = job.batch_host, .keep_nodes = own_keep});
    }
  }
  if (!result.ok) {
    // Released satellites stay released; the next poll shows what is left to do.
    failed(job_id, drain.kind, kind, result.error, drain.drain, now);
    return false;
  }
  notes_.push_back(done(kind, job_id, drain.drain));
  succeeded(job_id, kind);
  if (drain.waiting_job != 0) {
    reclaim_latencies_.push_back(now.mono - drain.requested_at);
    for (const std::string& node : drain.drain) {
      promises_[node] = Promise{drain.going_to(node), now.mono + kPromiseS};
    }
  }
  // A shrink for a regular job that waits is a reclaim.
  const ResizeKind resize_kind = drain.kind == ActionKind::requeue ? ResizeKind::requeue
                                 : drain.waiting_job != 0          ? ResizeKind::reclaim
                                                                   : ResizeKind::shrink;
  resizes_.push_back(
      {job_id,
       ResizeRecord{static_cast<double>(now.wall), resize_kind, drain.reason,
                    drain.kind == ActionKind::shrink ? drain.keep : std::vector<std::string>{}}});
  if (drain.kind == ActionKind::shrink) {
    jobs.resized(job_id, drain.keep, std::move(kept_satellites), now.mono);
  } else {
    jobs.resized(job_id, {}, {}, now.mono);
  }
  return true;
}

void Resizer::succeeded(std::uint32_t job_id, std::string_view kind) {
  ++counts_.done[std::string(kind)];
  backoffs_.erase(job_id);
}

void Resizer::failed(std::uint32_t job_id, ActionKind kind, std::string_view kind_name,
                     const std::string& error, const std::vector<std::string>& nodes,
                     const Now& now) {
  ++counts_.failed[std::string(kind_name)];
  Backoff& backoff = backoffs_[job_id];
  backoff.failures = backoff.kind == kind ? backoff.failures + 1 : 1;
  backoff.kind = kind;
  backoff.error = error;
  const double wait =
      std::min(settings_.retry_max_s, settings_.retry_min_s * std::pow(2.0, backoff.failures - 1));
  backoff.retry_at = now.mono + wait;
  note(NoteLevel::warning, "action failed",
       {{"ACTION", kind_name},
        {"JOB_ID", job_id},
        {"NODES", join_nodes(nodes)},
        {"REASON", error},
        {"FAILURES", backoff.failures},
        {"RETRY_IN_S", seconds_text(wait)}});
}

bool Resizer::hold_unstarted_admissions(const Snapshot& snapshot, const Now& now) {
  bool changed = false;
  for (auto it = admitted_.begin(); it != admitted_.end();) {
    if (!awaiting_start(find_job(snapshot, it->first), snapshot.taken_at)) {
      // Started, ended, or held or parked by someone else. The admission's backoff (which keeps the
      // job from being admitted again meanwhile) is over too: the job may grow now.
      const auto backoff = backoffs_.find(it->first);
      if (backoff != backoffs_.end() && backoff->second.kind == ActionKind::admit) {
        backoffs_.erase(backoff);
      }
      it = admitted_.erase(it);
      continue;
    }
    if (now.mono < it->second.running_by) {
      ++it;
      continue;
    }
    const ActionResult result = slurm_.park(it->first);
    if (!result.ok) {
      note(NoteLevel::warning, "action failed",
           {{"ACTION", "park"}, {"JOB_ID", it->first}, {"REASON", result.error}});
      ++it;  // tried again at the next poll
      continue;
    }
    note(NoteLevel::warning, "admitted job not started by Slurm: parked again",
         {{"ACTION", "park"},
          {"JOB_ID", it->first},
          {"WAITED_S", std::lround(settings_.admit_start_s)}});
    backoffs_.erase(it->first);
    it = admitted_.erase(it);
    changed = true;
  }
  return changed;
}

void Resizer::forget_except(const ElasticJobs& jobs, const Snapshot& snapshot) {
  std::erase_if(drains_, [&](const auto& entry) { return !jobs.contains(entry.first); });
  // Backoffs and user limits outlive a requeue (the job is pending, then registers again).
  const JobIndex index(snapshot);  // satellites have lease backoffs too: hundreds of look-ups
  const auto gone = [&](const auto& entry) { return index.find(entry.first) == nullptr; };
  std::erase_if(backoffs_, gone);
  std::erase_if(user_limits_, gone);
  std::erase_if(lease_backoff_until_, gone);
  std::erase_if(admitted_, gone);
  std::erase_if(overtook_, gone);
}

bool Resizer::promise_holds(const std::string& node, const Promise& promise,
                            const Snapshot& snapshot, const Now& now) {
  if (now.mono >= promise.until) return false;
  const Job* waiting = find_job(snapshot, promise.waiting_job);
  if (waiting == nullptr || waiting->state != JobState::pending) return false;
  // Another job took the node (Slurm gives freed nodes to the highest priority that fits): the
  // waiting job is owed nodes again.
  const auto it = std::find_if(snapshot.nodes.begin(), snapshot.nodes.end(),
                               [&](const Node& n) { return n.name == node; });
  return it != snapshot.nodes.end() &&
         (it->state == NodeState::idle || it->state == NodeState::planned ||
          it->state == NodeState::completing);
}

std::set<std::string> Resizer::promised(const Snapshot& snapshot, const Now& now) const {
  std::set<std::string> nodes;
  for (const auto& [node, promise] : promises_) {
    if (promise_holds(node, promise, snapshot, now)) nodes.insert(node);
  }
  for (const auto& [job_id, admission] : admitted_) {
    if (awaiting_start(find_job(snapshot, job_id), snapshot.taken_at) &&
        now.mono < admission.running_by) {
      nodes.insert(admission.nodes.begin(), admission.nodes.end());
    }
  }
  return nodes;
}

std::set<std::uint32_t> Resizer::served(const Snapshot& snapshot, const Now& now) const {
  std::set<std::uint32_t> jobs;
  for (const auto& [job_id, drain] : drains_) {
    jobs.insert(drain.waiting_jobs.begin(), drain.waiting_jobs.end());
  }
  for (const auto& [node, promise] : promises_) {
    if (promise_holds(node, promise, snapshot, now)) jobs.insert(promise.waiting_job);
  }
  return jobs;
}

std::vector<std::string> Resizer::draining(std::uint32_t job_id) const {
  const auto it = drains_.find(job_id);
  return it == drains_.end() ? std::vector<std::string>{} : it->second.drain;
}

std::vector<ElasticJob> Resizer::planning_view(const ElasticJobs& jobs) const {
  std::vector<ElasticJob> view;
  for (const auto& [job_id, job] : jobs.jobs()) {
    ElasticJob seen = job;
    const auto drain = drains_.find(job_id);
    if (drain != drains_.end()) {
      // Requeued jobs take part no more; shrinking ones with what they keep.
      if (drain->second.kind == ActionKind::requeue) continue;
      std::erase_if(seen.nodes,
                    [&](const std::string& n) { return contains(drain->second.drain, n); });
    }
    view.push_back(std::move(seen));
  }
  return view;
}

Json::Value actions_json(const Resizer& resizer, double now_mono) {
  const auto strings = [](const std::vector<std::string>& items) {
    Json::Value array(Json::arrayValue);
    for (const std::string& item : items) array.append(item);
    return array;
  };
  Json::Value out(Json::objectValue);
  Json::Value draining(Json::arrayValue);
  for (const auto& [job_id, drain] : resizer.drains()) {
    Json::Value d(Json::objectValue);
    d["job_id"] = job_id;
    d["action"] = std::string(to_string(drain.kind));
    d["nodes"] = strings(drain.drain);
    d["keep"] = strings(drain.keep);
    d["waiting_job"] = drain.waiting_job != 0 ? Json::Value(drain.waiting_job) : Json::Value();
    d["reason"] = drain.reason;
    d["for_s"] = now_mono - drain.requested_at;
    d["deadline_in_s"] = std::max(0.0, drain.deadline - now_mono);
    draining.append(d);
  }
  out["draining"] = draining;
  Json::Value retrying(Json::arrayValue);
  for (const auto& [job_id, backoff] : resizer.backoffs()) {
    if (backoff.failures == 0) continue;  // an admission waiting for Slurm, not a failure
    Json::Value r(Json::objectValue);
    r["job_id"] = job_id;
    r["action"] = std::string(to_string(backoff.kind));
    r["error"] = backoff.error;
    r["failures"] = backoff.failures;
    r["retry_in_s"] = std::max(0.0, backoff.retry_at - now_mono);
    retrying.append(r);
  }
  out["retrying"] = retrying;
  for (const char* key : {"done", "failed"}) {
    const auto& counts =
        std::string(key) == "done" ? resizer.counts().done : resizer.counts().failed;
    Json::Value c(Json::objectValue);
    for (const auto& [kind, n] : counts) c[kind] = Json::UInt64{n};
    out[key] = c;
  }
  return out;
}

}  // namespace gaptrain::core
