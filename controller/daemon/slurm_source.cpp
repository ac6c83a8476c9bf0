#include "slurm_source.hpp"

#include <ctime>
#include <stdexcept>

#include "hostlist.hpp"
#include "slurm_api.hpp"
#include "slurm_compat.hpp"

namespace gaptrain::daemon {

namespace {

std::string slurm_error() {
  return slurm_compat::last_error_text();
}

std::string text(const char* s) {
  return s == nullptr ? std::string() : std::string(s);
}

std::int64_t epoch(time_t t) {
  return static_cast<std::int64_t>(t);
}

core::NodeState node_state(std::uint32_t state) {
  const std::uint32_t base = state & NODE_STATE_BASE;
  // Down-like flags first: a failing or unreachable node hosts nothing, whatever its base.
  if (base == NODE_STATE_DOWN ||
      (state & (NODE_STATE_FAIL | NODE_STATE_NO_RESPOND | NODE_STATE_POWERED_DOWN)) != 0U) {
    return core::NodeState::down;
  }
  if (base == NODE_STATE_FUTURE) return core::NodeState::future;
  const bool drain = (state & NODE_STATE_DRAIN) != 0U;
  switch (base) {
    case NODE_STATE_IDLE:
      if (drain) return core::NodeState::drained;
      // COMPLETING on an idle base: the epilog of the job that just left still runs.
      if ((state & NODE_STATE_COMPLETING) != 0U) return core::NodeState::completing;
      if ((state & NODE_STATE_PLANNED) != 0U) return core::NodeState::planned;
      return core::NodeState::idle;
    case NODE_STATE_ALLOCATED:
      return drain ? core::NodeState::draining : core::NodeState::allocated;
    case NODE_STATE_MIXED: return drain ? core::NodeState::draining : core::NodeState::mixed;
    default: return core::NodeState::unknown;
  }
}

core::PendingReason pending_reason(std::uint32_t reason) {
  switch (reason) {
    case WAIT_NO_REASON: return core::PendingReason::none;
    case WAIT_PRIORITY: return core::PendingReason::priority;
    case WAIT_RESOURCES: return core::PendingReason::resources;
    default: return core::PendingReason::other;
  }
}

core::JobState job_state(std::uint32_t state) {
  switch (state & JOB_STATE_BASE) {
    case JOB_PENDING: return core::JobState::pending;
    case JOB_RUNNING: return core::JobState::running;
    case JOB_SUSPENDED: return core::JobState::suspended;
    default: return core::JobState::finished;
  }
}

struct NodeMsgDeleter {
  void operator()(node_info_msg_t* m) const { slurm_free_node_info_msg(m); }
};
struct JobMsgDeleter {
  void operator()(job_info_msg_t* m) const { slurm_free_job_info_msg(m); }
};
struct PartMsgDeleter {
  void operator()(partition_info_msg_t* m) const { slurm_free_partition_info_msg(m); }
};
struct ResvMsgDeleter {
  void operator()(reserve_info_msg_t* m) const { slurm_free_reservation_info_msg(m); }
};

// One table's cached answer: reused while slurmctld answers "no change since last_update".
template <typename Msg, typename Deleter>
struct Table {
  std::unique_ptr<Msg, Deleter> msg;

  // Calls `load(update_time, &fresh)`; true when `msg` holds a current answer afterwards.
  template <typename Load>
  bool refresh(Load load, bool full) {
    const time_t since = (msg && !full) ? msg->last_update : 0;
    Msg* fresh = nullptr;
    if (load(since, &fresh) == SLURM_SUCCESS) {
      msg.reset(fresh);
      return true;
    }
    return msg && slurm_compat::last_error() == SLURM_NO_CHANGE_IN_DATA;
  }
};

}  // namespace

struct SlurmSource::Cache {
  Table<node_info_msg_t, NodeMsgDeleter> nodes;
  Table<job_info_msg_t, JobMsgDeleter> jobs;
  Table<reserve_info_msg_t, ResvMsgDeleter> reservations;
  Table<partition_info_msg_t, PartMsgDeleter> partitions;
};

SlurmSource::SlurmSource() : cache_(std::make_unique<Cache>()) {
  // Since 20.11 libslurm must be initialized before use; NULL reads SLURM_CONF or the default.
  slurm_init(nullptr);
}

SlurmSource::~SlurmSource() {
  cache_.reset();
  slurm_fini();
}

SlurmSource::Result SlurmSource::poll(core::Snapshot& snapshot, std::int64_t now, bool full) {
  Cache& c = *cache_;
  // SHOW_ALL: nodes and jobs of hidden partitions are holes and reclaimers too.
  if (!c.nodes.refresh(
          [](time_t t, node_info_msg_t** m) { return slurm_load_node(t, m, SHOW_ALL); }, full)) {
    return {false, "slurm_load_node: " + slurm_error()};
  }
  if (!c.jobs.refresh([](time_t t, job_info_msg_t** m) { return slurm_load_jobs(t, m, SHOW_ALL); },
                      full)) {
    return {false, "slurm_load_jobs: " + slurm_error()};
  }
  if (!c.reservations.refresh(
          [](time_t t, reserve_info_msg_t** m) { return slurm_load_reservations(t, m); }, full)) {
    return {false, "slurm_load_reservations: " + slurm_error()};
  }
  if (!c.partitions.refresh(
          [](time_t t, partition_info_msg_t** m) { return slurm_load_partitions(t, m, SHOW_ALL); },
          full)) {
    return {false, "slurm_load_partitions: " + slurm_error()};
  }

  core::Snapshot fresh;
  fresh.taken_at = now;
  try {
    const node_info_msg_t& nodes = *c.nodes.msg;
    for (std::uint32_t i = 0; i < nodes.record_count; ++i) {
      const node_info_t& n = nodes.node_array[i];
      if (n.name == nullptr) continue;  // a hole in Slurm's node table (future/cloud nodes)
      core::Node node;
      node.name = n.name;
      node.state = node_state(n.node_state);
      node.last_busy = epoch(n.last_busy);
      node.features = text(n.features_act != nullptr ? n.features_act : n.features);
      node.gres = text(n.gres);
      node.weight = n.weight;
      fresh.nodes.push_back(std::move(node));
    }
    const job_info_msg_t& jobs = *c.jobs.msg;
    for (std::uint32_t i = 0; i < jobs.record_count; ++i) {
      const slurm_job_info_t& j = jobs.job_array[i];
      core::Job job;
      job.id = j.job_id;
      job.name = text(j.name);
      job.user_id = j.user_id;
      job.group_id = j.group_id;
      job.user = text(j.user_name);
      job.partition = text(j.partition);
      job.account = text(j.account);
      job.admin_comment = text(j.admin_comment);
      job.qos = text(j.qos);
      job.tres_per_node = text(j.tres_per_node);
      job.tres_per_job = text(j.tres_per_job);
      job.features = text(j.features);
      job.state = job_state(j.job_state);
      job.completing = (j.job_state & JOB_COMPLETING) != 0U;
      if (holds_nodes(job)) job.nodes = expand_hostlist(j.nodes);
      job.batch_host = text(j.batch_host);
      job.start_time = epoch(j.start_time);
      job.end_time = epoch(j.end_time);
      if (job.state == core::JobState::pending) job.sched_nodes = expand_hostlist(j.sched_nodes);
      if (j.time_limit != INFINITE && j.time_limit != NO_VAL) job.time_limit_minutes = j.time_limit;
      if (j.num_nodes != NO_VAL) job.min_nodes = j.num_nodes;
      // A pending job's minimum is in its requested TRES: the count above is Slurm's guess for
      // one it has tried to place (cluster.hpp, requested_node_count).
      if (job.state == core::JobState::pending) {
        if (auto requested = core::requested_node_count(text(j.tres_req_str)))
          job.min_nodes = *requested;
      }
      if (j.max_nodes != NO_VAL) job.max_nodes = j.max_nodes;
      job.held = job.state == core::JobState::pending && j.priority == 0;
      job.priority = j.priority;
      job.eligible_time = epoch(j.eligible_time);
      job.requeued = j.restart_cnt > 0;
      job.submit_time = epoch(j.submit_time);
      job.completed_ok = (j.job_state & JOB_STATE_BASE) == JOB_COMPLETE;
      job.preempted = (j.job_state & JOB_STATE_BASE) == JOB_PREEMPTED;
      job.dependency = text(j.dependency);
      if (job.state == core::JobState::pending) {
        job.reason = pending_reason(j.state_reason);
        // Where it may start (node_needs.hpp): a job pinned to a node waits for that node only.
        job.required_nodes = expand_hostlist(j.req_nodes);
        job.excluded_nodes = expand_hostlist(j.exc_nodes);
        job.reservation = text(j.resv_name);
      }
      fresh.jobs.push_back(std::move(job));
    }
    const reserve_info_msg_t& resvs = *c.reservations.msg;
    for (std::uint32_t i = 0; i < resvs.record_count; ++i) {
      const reserve_info_t& r = resvs.reservation_array[i];
      core::Reservation reservation{text(r.name), epoch(r.start_time), epoch(r.end_time), {}};
      reservation.nodes = expand_hostlist(r.node_list);
      fresh.reservations.push_back(std::move(reservation));
    }
    const partition_info_msg_t& parts = *c.partitions.msg;
    for (std::uint32_t i = 0; i < parts.record_count; ++i) {
      const partition_info_t& p = parts.partition_array[i];
      fresh.partitions.push_back({text(p.name), expand_hostlist(p.nodes), p.priority_tier});
    }
  } catch (const std::invalid_argument& e) {
    return {false, e.what()};
  }
  snapshot = std::move(fresh);
  return {true, {}};
}

SlurmSource::Result SlurmSource::load_config(Config& config) {
  slurm_conf_t* conf = nullptr;
  if (slurm_load_ctl_conf(0, &conf) != SLURM_SUCCESS) {
    return {false, "slurm_load_ctl_conf: " + slurm_error()};
  }
  config.slurm_user = static_cast<uid_t>(conf->slurm_user_id);
  config.private_data.jobs = (conf->private_data & PRIVATE_DATA_JOBS) != 0;
  config.private_data.nodes = (conf->private_data & PRIVATE_DATA_NODES) != 0;
  config.private_data.reservations = (conf->private_data & PRIVATE_DATA_RESERVATIONS) != 0;
  config.private_data.usage = (conf->private_data & PRIVATE_DATA_USAGE) != 0;
  config.private_data.users = (conf->private_data & PRIVATE_DATA_USERS) != 0;
  config.private_data.accounts = (conf->private_data & PRIVATE_DATA_ACCOUNTS) != 0;
  config.controller.slurmctld_release = text(conf->version);
  config.controller.scheduler_parameters = text(conf->sched_params);
  config.controller.preempt_type = text(conf->preempt_type);
  config.controller.preempt_mode_cancel = (conf->preempt_mode & PREEMPT_MODE_CANCEL) != 0U;
  config.controller.built_release = slurm_compat::built_release();
  slurm_compat::free_config(conf);
  return {true, {}};
}

}  // namespace gaptrain::daemon
