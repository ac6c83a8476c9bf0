// The daemon's answers to what comes in over its socket: the plugin's node events and job
// registrations, the launchers' reports, and the CLI's status, job and operation requests, each
// authenticated with munge first (daemon.cpp keeps the loop, the polls and the decisions).
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>

#include "auth.hpp"
#include "core/launch_instruction.hpp"
#include "daemon.hpp"
#include "daemon_clock.hpp"
#include "gaptrain/input_error.hpp"
#include "gaptrain/json_text.hpp"
#include "gaptrain/munge_envelope.hpp"
#include "gaptrain/protocol.hpp"
#include "job_view.hpp"
#include "log.hpp"

namespace gaptrain::daemon {

std::string Daemon::job_reply(std::uint32_t job_id, uid_t uid) {
  core::JobHistory* const kept = controller_->history();
  if (kept == nullptr) return error_reply("gaptraind keeps no job histories");  // never: it does
  core::JobHistory& history = *kept;
  const core::JobRecord* job = history.find(job_id);
  const double wall = wall_now_precise();
  history.tick(wall, mono_now_uncached_s());
  const double now = history.steady(wall);
  if (job == nullptr) {
    // Not managed yet: a parked or held job waiting for admission says why it waits (to its
    // owner and admins, as `gaptrain status` lists the queue).
    const core::Job* slurm_job = find_job(controller_->snapshot(), job_id);
    const auto waiting = std::find_if(queue_waiting_.begin(), queue_waiting_.end(),
                                      [&](const auto& entry) { return entry.first == job_id; });
    if (waiting != queue_waiting_.end() && slurm_job != nullptr &&
        (privileged(uid) || slurm_job->user_id == uid)) {
      Json::Value reply(Json::objectValue);
      reply["ok"] = false;
      reply["queued"] = true;
      reply["error"] =
          "job " + std::to_string(job_id) + " waits for gaptraind to admit it: " + waiting->second;
      return one_line_json(reply);
    }
    Json::Value reply(Json::objectValue);
    reply["ok"] = false;
    reply["unknown_job"] = true;
    reply["error"] = "job " + std::to_string(job_id) +
                     " is not in gaptraind's history: gaptrain did not manage it (not submitted "
                     "--elastic, or not registered yet), it ended more than job_history (" +
                     std::to_string(config_.job_history) +
                     ") jobs ago, or before gaptraind last started";
    return one_line_json(reply);
  }
  const StatusViewer viewer{uid, privileged(uid)};
  if (auto refused = job_view_refusal(job_id, job->uid,
                                      private_data_.value_or(core::PrivateData::all()), viewer)) {
    return error_reply(*refused);
  }
  Json::Value reply(Json::objectValue);
  reply["ok"] = true;
  reply["job"] = job_view_json(*job, now);
  return one_line_json(reply);
}

std::string Daemon::on_operation(const std::string& request, uid_t uid) {
  operation_ = request == "pause"   ? core::Operation::paused
               : request == "drain" ? core::Operation::draining
                                    : core::Operation::running;
  operation_asked_ = true;
  metrics_.set_operation(operation_);
  save_state();
  log::info("operation changed by an admin",
            {{"OPERATION", std::string(to_string(operation_))}, {"UID", uid}});
  poll_soon();
  Json::Value reply(Json::objectValue);
  reply["ok"] = true;
  reply["operation"] = std::string(to_string(operation_));
  return one_line_json(reply);
}

void Daemon::note_rejection(const std::string& sender) {
  if (limiter_.rejected(sender, now().mono)) {
    log::warning("sender blocked: too many refused requests",
                 {{"SENDER", sender}, {"BLOCK_S", std::lround(limiter_.limits().block_s)}});
  }
}

bool Daemon::privileged(uid_t uid) const {
  return uid == 0 || uid == slurm_user_;
}

std::string Daemon::blocked_reason(uid_t uid) const {
  return "uid " + std::to_string(uid) + " is blocked for up to " +
         std::to_string(std::lround(limiter_.limits().block_s)) +
         " s after too many refused requests; its jobs' launchers and status are still served";
}

void Daemon::note_rejection(uid_t uid) {
  // Root and SlurmUser are never blocked: a plugin event or an admin's command must get through
  // whatever else happens on their hosts.
  if (!privileged(uid)) note_rejection(sender_of_uid(uid));
}

std::string Daemon::reject(const std::string& peer, std::optional<uid_t> uid, std::string_view kind,
                           const std::string& reason) {
  ++events_.rejected;
  log::warning("request rejected", {{"UID", uid ? std::to_string(*uid) : std::string("unknown")},
                                    {"REASON", reason},
                                    {"PEER", peer},
                                    {"REQUEST", kind}});
  return error_reply(reason);
}

void Daemon::handle_line(std::string_view line, const std::string& peer,
                         LineServer::ConnectionId id) {
  if (!line.starts_with(munge::kMungeCredentialPrefix)) {
    // Refused here, without a round trip to munged: garbage must cost next to nothing.
    const std::string sender = sender_of_address(peer_address(peer));
    const std::string reason = "not authenticated: the request is not a munge credential";
    std::string reply = limiter_.blocked(sender, now().mono)
                            ? error_reply(reason)  // counted, not logged again while blocked
                            : reject(peer, std::nullopt, "unknown", reason);
    note_rejection(sender);
    return server_->reply(id, std::move(reply));
  }
  // munged is a socket round trip away, and may hang: the credential is opened off the loop.
  auth_worker_->post([this, credential = std::string(line), socket = config_.munge_socket, peer,
                      id]() -> Worker::Done {
    std::optional<munge::Opened> opened;
    std::string error;
    try {
      opened = munge::open(credential, socket);
    } catch (const munge::MungeError& e) {
      error = e.what();
    }
    return [this, opened = std::move(opened), error = std::move(error), peer, id] {
      on_request(opened ? &*opened : nullptr, error, peer, id);
    };
  });
}

void Daemon::on_request(const munge::Opened* opened, const std::string& munge_error,
                        const std::string& peer, LineServer::ConnectionId id) {
  const auto answer = [&](std::string reply) { server_->reply(id, std::move(reply)); };
  try {
    if (opened == nullptr) {
      note_rejection(sender_of_address(peer_address(peer)));
      return answer(reject(peer, std::nullopt, "unknown", "not authenticated: " + munge_error));
    }
    const uid_t uid = opened->uid;
    protocol::Request request;
    try {
      request = protocol::decode(opened->payload);
    } catch (const InputError& e) {
      note_rejection(uid);
      return answer(reject(peer, uid, "unknown", std::string("bad request: ") + e.what()));
    }
    const std::string_view type = protocol::type_name(request);
    // A blocked uid is still served what its jobs need (its launchers' reports and
    // registrations of running jobs, below) and status (throttled on its own); the rest is
    // refused without work.
    const bool blocked = !privileged(uid) && limiter_.blocked(sender_of_uid(uid), now().mono);
    if (blocked && (std::holds_alternative<protocol::NodeFreed>(request) ||
                    std::holds_alternative<protocol::NodeTaken>(request))) {
      return answer(error_reply(blocked_reason(uid)));
    }

    if (std::holds_alternative<protocol::StatusRequest>(request)) {
      // Status requests are not counted as events: a monitoring loop would drown the count.
      const StatusViewer viewer{uid, privileged(uid)};
      if (!viewer.privileged && !status_throttle_.allow(uid, now().mono)) {
        // Not a rejection (note_rejection): a user's `watch` must not block their host.
        return answer(error_reply(
            "too many status requests from uid " + std::to_string(uid) + ": at most " +
            std::to_string(std::lround(status_throttle_.limits().per_s)) +
            " a second; try again in " +
            std::to_string(std::lround(std::ceil(status_throttle_.wait_s(uid, now().mono)))) +
            " s"));
      }
      Json::Value reply(Json::objectValue);
      reply["ok"] = true;
      reply["status"] = status_json(controller_->snapshot(), controller_->holes(),
                                    controller_->jobs(), events_, last_poll_);
      reply["status"]["actions"] = actions_json(controller_->resizer(), now().mono);
      reply["status"]["operation"] = std::string(to_string(operation_));
      reply["status"]["queue"] =
          queue_json(queue_waiting_, controller_->snapshot(),
                     viewer.privileged ? std::nullopt : std::optional<std::uint32_t>(uid));
      apply_private_data(reply["status"], controller_->snapshot(), controller_->jobs(),
                         private_data_.value_or(core::PrivateData::all()), viewer);
      // While slurmctld does not answer, the view above is the last one it gave.
      reply["status"]["slurm_error"] =
          poll_failing_ ? Json::Value(poll_error_) : Json::Value(Json::nullValue);
      return answer(one_line_json(reply));
    }
    if (std::holds_alternative<protocol::JobRequest>(request)) {
      const StatusViewer viewer{uid, privileged(uid)};
      if (!viewer.privileged && !status_throttle_.allow(uid, now().mono)) {
        return answer(error_reply(
            "too many status and job requests from uid " + std::to_string(uid) + "; try again in " +
            std::to_string(std::lround(std::ceil(status_throttle_.wait_s(uid, now().mono)))) +
            " s"));
      }
      return answer(job_reply(std::get<protocol::JobRequest>(request).job_id, uid));
    }
    if (std::holds_alternative<protocol::JobRegistration>(request)) {
      const auto& registration = std::get<protocol::JobRegistration>(request);
      const core::Job* job = find_job(controller_->snapshot(), registration.job_id);
      if (blocked && (job == nullptr || job->state != core::JobState::running)) {
        // It would wait for a poll: the cost the block is there to stop.
        return answer(error_reply(blocked_reason(uid)));
      }
      return on_registration(registration, uid, peer, id, false);
    }
    if (std::holds_alternative<protocol::LauncherReport>(request)) {
      auto report = std::get<protocol::LauncherReport>(request);
      if (hold_while_acting([this, report, uid, peer, id] {
            server_->reply(id, on_launcher_report(report, uid, peer));
          })) {
        return;
      }
      return answer(on_launcher_report(report, uid, peer));
    }
    // Until slurmctld told us who SlurmUser is, only root may send node events.
    if (auto refused = authorize(request, uid, slurm_user_.value_or(0), std::nullopt)) {
      note_rejection(uid);  // a forged node event
      return answer(reject(peer, uid, type, *refused));
    }
    if (const auto* operation = std::get_if<protocol::OperationRequest>(&request)) {
      return answer(on_operation(operation->operation, uid));
    }
    if (const auto* freed = std::get_if<protocol::NodeFreed>(&request)) {
      on_node_event(true, freed->job_id, freed->node, uid, false);
    } else if (const auto* taken = std::get_if<protocol::NodeTaken>(&request)) {
      on_node_event(false, taken->job_id, taken->node, uid, taken->elastic);
    }
    ++events_.accepted;
    return answer(R"({"ok":true})");
  } catch (const std::exception& e) {
    // Never let one request take the daemon down; the client learns it failed.
    log::error("internal error handling a request", {{"REASON", e.what()}, {"PEER", peer}});
    return answer(error_reply(std::string("internal error: ") + e.what()));
  }
}

void Daemon::on_node_event(bool freed, std::uint32_t job_id, const std::string& node, uid_t uid,
                           bool elastic) {
  if (freed) {
    log::info("node freed", {{"JOB_ID", job_id}, {"NODE", node}, {"UID", uid}});
  } else {
    const auto hole = std::find_if(controller_->holes().begin(), controller_->holes().end(),
                                   [&](const core::Hole& h) { return h.node == node; });
    if (hole != controller_->holes().end()) {
      // A reclaim: the regular workload took a hole. HOLE_END says what we predicted, so the
      // journal tells how good the predictions are.
      log::info("hole reclaimed", {{"JOB_ID", job_id},
                                   {"NODE", node},
                                   {"UID", uid},
                                   {"ELASTIC", elastic ? "yes" : "no"},
                                   {"HOLE_SINCE", hole->since},
                                   {"HOLE_END", core::end_text(hole->predicted_end)}});
    } else {
      log::info(
          "node taken",
          {{"JOB_ID", job_id}, {"NODE", node}, {"UID", uid}, {"ELASTIC", elastic ? "yes" : "no"}});
    }
  }
  // The event is a hint; the poll it triggers is the truth (a lost event costs latency only).
  poll_soon();
}

void Daemon::on_registration(const protocol::JobRegistration& request, uid_t uid,
                             const std::string& peer, LineServer::ConnectionId id, bool polled) {
  if (hold_while_acting([this, request, uid, peer, id, polled] {
        on_registration(request, uid, peer, id, polled);
      })) {
    return;
  }
  const core::Job* job = find_job(controller_->snapshot(), request.job_id);
  if (!polled && (job == nullptr || job->state != core::JobState::running)) {
    // The job may have started after the last poll: the next poll tells, rather than one run
    // here for each registration (any user could make gaptraind hammer slurmctld).
    awaiting_poll_.push_back({request, uid, peer, id});
    poll_for_registration();
    return;
  }
  const std::optional<uid_t> owner =
      job ? std::optional<uid_t>(static_cast<uid_t>(job->user_id)) : std::nullopt;
  std::optional<std::string> refused = authorize(request, uid, slurm_user_.value_or(0), owner);
  if (!refused) {
    refused = controller_->add(request, wall_now());
  }
  if (refused) {
    note_rejection(uid);  // each one may have cost a poll: limited like any other refusal
    server_->reply(id, reject(peer, uid, "register", *refused));
    return;
  }
  const core::ElasticJob& elastic = controller_->jobs().jobs().at(request.job_id);
  if (poll_observer_) registered_.push_back(request.job_id);
  ++events_.accepted;
  log::info("elastic job registered", {{"JOB_ID", request.job_id},
                                       {"UID", uid},
                                       {"USER", elastic.given.user},
                                       {"NODES", core::join_nodes(elastic.nodes)},
                                       {"BATCH_HOST", elastic.batch_host},
                                       {"MIN_NODES", elastic.given.min_nodes},
                                       {"MAX_NODES", elastic.given.max_nodes},
                                       {"CURVE", to_string(elastic.curve_source)},
                                       {"COSTS", to_string(elastic.costs_source)},
                                       {"UP_COST_S", core::seconds_text(elastic.up_cost_s)},
                                       {"DOWN_COST_S", core::seconds_text(elastic.down_cost_s)}});
  save_state();
  server_->reply(id, R"({"ok":true})");
}

std::string Daemon::on_launcher_report(const protocol::LauncherReport& report, uid_t uid,
                                       const std::string& peer) {
  // The owner recorded at registration; for a job never registered, Slurm's (so that its owner
  // learns "not registered" rather than "not allowed"). No poll here: launchers report twice a
  // second, and a registered job is in the model already.
  std::optional<uid_t> owner;
  const auto registered = controller_->jobs().jobs().find(report.job_id);
  if (registered != controller_->jobs().jobs().end()) {
    owner = registered->second.uid;
  } else if (const core::Job* job = find_job(controller_->snapshot(), report.job_id)) {
    owner = static_cast<uid_t>(job->user_id);
  }
  if (auto refused = authorize(report, uid, slurm_user_.value_or(0), owner)) {
    return reject(peer, uid, "launcher", *refused);
  }
  const bool first =
      registered != controller_->jobs().jobs().end() && !registered->second.reported_at;
  if (!controller_->report(report, now())) {
    // The job's registration came and waits for the poll that sees the job run: the launcher's
    // first report often comes meanwhile. Not a refusal (status would count one at every job
    // start, and the launcher would register again): nothing to follow yet.
    const auto pending = [&](const std::vector<WaitingRegistration>& waiting) {
      return std::any_of(waiting.begin(), waiting.end(), [&](const WaitingRegistration& w) {
        return w.request.job_id == report.job_id;
      });
    };
    if (pending(awaiting_poll_) || pending(awaiting_answer_)) {
      return protocol::encode_reply(protocol::LaunchInstruction{});
    }
    return reject(peer, uid, "launcher",
                  "job " + std::to_string(report.job_id) +
                      " is not registered with gaptrain (submitted without --elastic, its "
                      "registration was not delivered, or it ended)");
  }
  const core::ElasticJob& reported = controller_->jobs().jobs().at(report.job_id);
  if (report.samples_done && reported.samples_done != report.samples_done &&
      reported.progress_refused == 1) {
    log::warning("progress refused", {{"JOB_ID", report.job_id},
                                      {"SAMPLES_DONE", std::to_string(*report.samples_done)},
                                      {"REASON",
                                       "below the last, or faster than its nodes can "
                                       "train; said once a job"}});
  }
  // Acks complete drains at once (act() on the worker does): a regular job may be waiting.
  if (config_.resize && controller_->resizer().drains().contains(report.job_id)) poll_soon();
  const core::ElasticJob& job = controller_->jobs().jobs().at(report.job_id);
  // Not counted as an event: like status, a steady stream would drown the plugin's count.
  if (first) {
    log::info("launcher reporting", {{"JOB_ID", report.job_id},
                                     {"UID", uid},
                                     {"RUNNING", core::join_nodes(report.running)},
                                     {"NODES", core::join_nodes(job.nodes)}});
  }
  // The job's nodes (the model keeps the batch host, the launcher's rendezvous host, first),
  // those of them it is asked to let go, the satellites its steps run in, its notices and the
  // batch to train at.
  const protocol::LaunchInstruction instruction =
      launch_instruction(job, controller_->resizer().draining(report.job_id),
                         controller_->resizer().notice(report.job_id));
  return protocol::encode_reply(instruction);
}

}  // namespace gaptrain::daemon
