#include "libslurm_actions.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <csignal>
#include <ctime>
#include <exception>
#include <memory>

#include "core/cluster.hpp"
#include "core/parking.hpp"
#include "hostlist.hpp"
#include "slurm_api.hpp"
#include "slurm_compat.hpp"

namespace gaptrain::daemon {

namespace {

// "<what>: <Slurm's message> (<code>)". Read right after the failing call: errno is per thread.
std::string failure(const std::string& what) {
  return what + ": " + slurm_compat::last_error_text();
}

core::ActionResult success() {
  return {true, {}};
}

std::string job_text(std::uint32_t job_id) {
  return "job " + std::to_string(job_id);
}

// A job_desc_msg_t with every field "unset" (NO_VAL, NULL), as slurm_update_job expects: only
// the fields a call sets are changed.
job_desc_msg_t blank_desc(std::uint32_t job_id) {
  job_desc_msg_t desc;
  slurm_init_job_desc_msg(&desc);
  slurm_compat::set_job_id(desc, job_id);
  return desc;
}

// slurm_update_job with `desc`; `what` describes the request for the error text.
core::ActionResult update(job_desc_msg_t& desc, const std::string& what) {
  if (slurm_update_job(&desc) != SLURM_SUCCESS) return {false, failure(what)};
  return success();
}

std::string base_state(std::uint32_t state) {
  static constexpr std::array<const char*, JOB_END> names = {
      "PENDING", "RUNNING",   "SUSPENDED", "COMPLETED", "CANCELLED", "FAILED",
      "TIMEOUT", "NODE_FAIL", "PREEMPTED", "BOOT_FAIL", "DEADLINE",  "OUT_OF_MEMORY"};
  const std::uint32_t base = state & JOB_STATE_BASE;
  return base < names.size() ? names[base] : "UNKNOWN";
}

std::string text(const char* s) {
  return s == nullptr ? std::string() : std::string(s);
}

struct JobMsgDeleter {
  void operator()(job_info_msg_t* m) const { slurm_free_job_info_msg(m); }
};

std::string this_host() {
  std::array<char, 256> name{};
  if (gethostname(name.data(), name.size() - 1) != 0) return "localhost";
  return name.data();
}

// Cancels one job (scancel). A job that has already ended, or that slurmctld no longer knows,
// is gone as asked: no error. Returns the error text, empty on success.
std::string cancel(std::uint32_t job_id) {
  if (slurm_kill_job(slurm_compat::job_ref(job_id), SIGKILL, 0) == SLURM_SUCCESS) return {};
  const int code = slurm_compat::last_error();
  if (code == ESLURM_ALREADY_DONE || code == ESLURM_INVALID_JOB_ID) return {};
  return "cancel of " + job_text(job_id) + ": " + slurm_compat::error_text(code);
}

// A satellite: a job with no batch script, in the job's partition, on exactly `node`, granted
// now or refused (immediate), owned by the job's user, charged to the job's account and QOS
// (else the user's default account would pay, and another association's limits would apply),
// with the job's per-node GRES (else a training step there finds no GPU), and named after the
// job, so that the job's launcher may run a step in it (srun --jobid) and the daemon finds it
// in its poll. Returns the new job's id, or 0 with `error` set.
std::uint32_t allocate_satellite(const core::GrowRequest& r, const std::string& node,
                                 std::string& error) {
  std::string partition = r.partition;
  std::string nodes = node;
  std::string name = core::satellite_name(r.job_id);
  std::string host = this_host();  // slurmctld refuses allocations without alloc_node
  // Slurm 24.11 also refuses them without a working directory ("Job cannot be submitted
  // without the current working directory specified", 2063; 22.05 did not ask). Nothing runs
  // there: the job's launcher starts its steps in its own directory (srun --jobid).
  std::string work_dir = "/";
  std::string account = r.account;
  std::string qos = r.qos;
  std::string tres_per_node = r.tres_per_node;
  std::string constraint = r.constraint;
  std::string reservation = r.reservation;
  job_desc_msg_t desc = blank_desc(NO_VAL);
  desc.partition = partition.data();
  if (!account.empty()) desc.account = account.data();
  if (!qos.empty()) desc.qos = qos.data();
  if (!tres_per_node.empty()) desc.tres_per_node = tres_per_node.data();
  if (!constraint.empty()) desc.features = constraint.data();
  if (!reservation.empty()) desc.reservation = reservation.data();
  desc.req_nodes = nodes.data();
  desc.name = name.data();
  desc.alloc_node = host.data();
  desc.work_dir = work_dir.data();
  desc.min_nodes = desc.max_nodes = 1;
  // The whole node, as the job's own nodes: a training step there gets every CPU, and no other
  // job lands beside it. (Satellites end by cancellation, never by a shrink: the 22.05 shrink
  // of an exclusive allocation leaks the node's reservation, docs/slurm-notes.md.)
  desc.shared = JOB_SHARED_NONE;
  desc.immediate = 1;
  if (r.time_limit_minutes != 0) desc.time_limit = r.time_limit_minutes;
  const std::string what = "satellite allocation of " + node + " for " + job_text(r.job_id) +
                           " in partition " + partition;
  if (std::string why = slurm_compat::cannot_allocate_for(r.user_id, r.group_id); !why.empty()) {
    error = what + ": refused, " + why;
    return 0;
  }
  // With the owner's credential: slurmctld gives the allocation to whoever asks (23.11 on).
  const slurm_compat::OwnedAllocation got = slurm_compat::allocate_as(r.user_id, r.group_id, desc);
  if (!got.error.empty()) {
    error = what + ": " + got.error;
    return 0;
  }
  if (got.job_id == 0) {
    error = what + ": no job in slurmctld's answer";
    return 0;
  }
  if (!got.granted) {
    // Queued instead of granted (should not happen with immediate): never leave it waiting.
    error = what + ": not granted at once (job " + std::to_string(got.job_id) + " cancelled)";
    if (std::string why = cancel(got.job_id); !why.empty()) error += "; " + why;
    return 0;
  }
  return got.job_id;
}

}  // namespace

core::ActionResult LibslurmActions::shrink(const core::ShrinkRequest& r) {
  if (std::string why = shrink_refusal(r); !why.empty()) return {false, why};
  std::string nodes = core::join_nodes(r.keep_nodes);
  job_desc_msg_t desc = blank_desc(r.job_id);
  desc.req_nodes = nodes.data();
  return update(desc, "shrink of " + job_text(r.job_id) + " to " + nodes);
}

core::GrowResult LibslurmActions::grow(const core::GrowRequest& r) {
  if (r.add_nodes.empty()) return {false, "grow of " + job_text(r.job_id) + ": no nodes", {}};
  std::map<std::string, std::uint32_t> satellites;
  for (const std::string& node : r.add_nodes) {
    std::string error;
    const std::uint32_t satellite = allocate_satellite(r, node, error);
    if (satellite != 0) {
      satellites[node] = satellite;
      continue;
    }
    // All or nothing: give back the nodes already taken.
    std::string cancelled;
    for (const auto& [taken, id] : satellites) {
      if (std::string why = cancel(id); !why.empty()) {
        error += "; " + why;
      } else {
        cancelled += (cancelled.empty() ? "" : ",") + taken + "=" + std::to_string(id);
      }
    }
    if (!cancelled.empty()) error += "; satellites already made cancelled: " + cancelled;
    return {false, error, {}};
  }
  return {true, {}, std::move(satellites)};
}

core::ActionResult LibslurmActions::release(const std::vector<std::uint32_t>& satellite_ids) {
  std::string errors;
  for (const std::uint32_t id : satellite_ids) {
    // The training had its drain request (SIGTERM) and its grace. Cancelling alone would make
    // slurmd send SIGTERM again and wait KillWait before SIGKILL: a step that is slow to stop
    // kept the node from the waiting regular job for 5 s in CI. SIGKILL its tasks first (an
    // error here only means no step runs), then end the allocation.
    (void)slurm_signal_job(slurm_compat::job_ref(id), SIGKILL);
    if (std::string why = cancel(id); !why.empty()) errors += (errors.empty() ? "" : "; ") + why;
  }
  if (!errors.empty()) return {false, "release of satellites: " + errors};
  return success();
}

core::ActionResult LibslurmActions::set_time_limit(std::uint32_t job_id, std::uint32_t minutes) {
  if (minutes == 0) return {false, "lease of " + job_text(job_id) + ": refused, 0 minutes"};
  job_desc_msg_t desc = blank_desc(job_id);
  desc.time_limit = minutes;
  return update(desc, "TimeLimit=" + std::to_string(minutes) + " for " + job_text(job_id));
}

core::ActionResult LibslurmActions::admit(const core::AdmitRequest& r) {
  if (!r.home_partition.empty()) return admit_home(r);
  const std::string what =
      "admission of " + job_text(r.job_id) + " on " + core::join_nodes(r.nodes);
  if (r.nodes.empty() || r.time_limit_minutes == 0) {
    return {false, what + ": refused, needs nodes and a time limit"};
  }
  std::string nodes = core::join_nodes(r.nodes);
  job_desc_msg_t shape = blank_desc(r.job_id);
  shape.min_nodes = shape.max_nodes = static_cast<std::uint32_t>(r.nodes.size());
  // One task and CPU per node, as for a fresh `-N` job: a requeued job keeps the task and CPU
  // counts of the size it last ran at, and Slurm would insist on that many nodes (or, with
  // fewer CPUs than tasks on the nodes, call the job never runnable and hold it).
  shape.num_tasks = shape.min_cpus = shape.min_nodes;
  shape.req_nodes = nodes.data();
  shape.time_limit = r.time_limit_minutes;
  std::string admin_comment = r.admin_comment;
  if (!admin_comment.empty()) shape.admin_comment = admin_comment.data();
  // Now: this ends a parked job's wait (its begin time far ahead, parking.hpp) in the same
  // update that gives it its nodes; Slurm holds a requeued job back for 2 minutes (BeginTime);
  // candidates whose own begin time is ahead are not admitted.
  shape.begin_time = time(nullptr);
  if (core::ActionResult set = update(shape, what); !set.ok) return set;
  return r.held ? release_hold(r.job_id) : success();
}

core::ActionResult LibslurmActions::admit_home(const core::AdmitRequest& r) {
  const std::string what =
      "admission of " + job_text(r.job_id) + " to home partition " + r.home_partition;
  std::string partition = r.home_partition;
  std::string no_nodes;  // what it was admitted on before (a requeue's) no longer binds it
  std::string no_gres;   // a home node has none: the satellites ask for them (the job's mark)
  job_desc_msg_t shape = blank_desc(r.job_id);
  shape.partition = partition.data();
  // One task on one home node, beside the other jobs' batch scripts there.
  shape.min_nodes = shape.max_nodes = 1;
  shape.num_tasks = shape.min_cpus = 1;
  shape.req_nodes = no_nodes.data();
  shape.tres_per_node = no_gres.data();
  shape.shared = 1;
  // Its own limit: a job at home holds no training node by it (its satellites are leased).
  shape.time_limit = r.time_limit_minutes == 0 ? INFINITE : r.time_limit_minutes;
  std::string admin_comment = r.admin_comment;
  if (!admin_comment.empty()) shape.admin_comment = admin_comment.data();
  shape.begin_time = time(nullptr);
  if (core::ActionResult set = update(shape, what); !set.ok) return set;
  return r.held ? release_hold(r.job_id) : success();
}

core::ActionResult LibslurmActions::release_hold(std::uint32_t job_id) {
  // Release (scontrol release): priority INFINITE lets Slurm recompute it.
  job_desc_msg_t desc = blank_desc(job_id);
  desc.priority = INFINITE;
  return update(desc, "release of " + job_text(job_id));
}

core::ActionResult LibslurmActions::requeue(std::uint32_t job_id) {
  // Held (scontrol requeuehold): the job keeps the nodes and limit an admission gave it, so
  // Slurm alone would wait for exactly those; gaptraind admits it again where the allocator
  // decides.
  if (slurm_requeue(slurm_compat::job_ref(job_id), JOB_REQUEUE_HOLD) != SLURM_SUCCESS) {
    return {false, failure("requeue of " + job_text(job_id))};
  }
  // Then parked and released in one update (slurmctld applies it under one lock: no moment
  // in which it is eligible), so that it keeps the priority Slurm computes for it instead of
  // the hold's 0, which would put it behind every parked job. Should Slurm refuse, the job
  // stays held: still a candidate, first come, first served among held jobs; the requeue
  // itself was done, so that is no failure.
  job_desc_msg_t park = blank_desc(job_id);
  park.begin_time = time(nullptr) + core::kParkForS;
  park.priority = INFINITE;
  (void)slurm_update_job(&park);
  return success();
}

core::ActionResult LibslurmActions::park(std::uint32_t job_id) {
  // A begin time far ahead, not a hold: the job keeps its priority and its place in the queue.
  job_desc_msg_t desc = blank_desc(job_id);
  desc.begin_time = time(nullptr) + core::kParkForS;
  return update(desc, "park of " + job_text(job_id));
}

JobView LibslurmActions::describe(std::uint32_t job_id) {
  JobView view;
  job_info_msg_t* raw = nullptr;
  if (slurm_load_job(&raw, slurm_compat::job_ref(job_id), SHOW_DETAIL) != SLURM_SUCCESS) {
    view.error = failure("load of " + job_text(job_id));
    return view;
  }
  const std::unique_ptr<job_info_msg_t, JobMsgDeleter> msg(raw);
  if (msg->record_count == 0) {
    view.error = job_text(job_id) + ": not found";
    return view;
  }
  const slurm_job_info_t& j = msg->job_array[0];
  view.state = base_state(j.job_state);
  view.partition = text(j.partition);
  view.batch_host = text(j.batch_host);
  view.user_id = j.user_id;
  view.group_id = j.group_id;
  view.time_limit_minutes = j.time_limit;
  try {
    view.nodes = expand_hostlist(j.nodes);
  } catch (const std::exception& e) {
    view.error = job_text(job_id) + ": " + e.what();
    return view;
  }
  view.ok = true;
  return view;
}

}  // namespace gaptrain::daemon
