#include "launcher.hpp"

#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <sstream>
#include <system_error>

#include "controller_link.hpp"
#include "gaptrain/node_sizes.hpp"
#include "hostfile.hpp"
#include "leave_timing.hpp"
#include "output.hpp"
#include "poll_backoff.hpp"
#include "process.hpp"
#include "progress.hpp"

namespace gaptrain::launch {

namespace {

using std::chrono::milliseconds;

// After srun was told to kill its tasks (grace over), this long before srun itself is killed.
constexpr milliseconds kSrunKillAfter{10000};
// squeue/scancel answers within this, or the stop falls back to the grace path.
constexpr milliseconds kCommandTimeout{5000};
// Backoff of a failing step's restart: 2 s, 4 s, 8 s... at most 30 s.
constexpr milliseconds kFirstBackoff{2000};
constexpr milliseconds kMaxBackoff{30000};
constexpr std::chrono::minutes kStableRun{5};
// A training reporting fewer workers than its running steps for this long, while it advances,
// has left nodes idle (a stranded rendezvous round): their steps are started again.
constexpr std::chrono::seconds kStrandedPatience{60};

std::vector<std::string> minus(const std::vector<std::string>& from,
                               const std::vector<std::string>& taken) {
  std::vector<std::string> rest;
  for (const std::string& item : from) {
    if (std::find(taken.begin(), taken.end(), item) == taken.end()) rest.push_back(item);
  }
  return rest;
}

milliseconds backoff(int failures) {
  milliseconds delay = kFirstBackoff;
  for (int i = 1; i < failures && delay < kMaxBackoff; ++i) delay *= 2;
  return std::min(delay, kMaxBackoff);
}

}  // namespace

Launcher::Launcher(LaunchOptions options, JobContext job)
    : options_(std::move(options)),
      job_(std::move(job)),
      stranded_(kStrandedPatience, job_.workers_per_node, job_.batch_host),
      progress_feed_(options_.progress_file, job_.max_nodes) {
  // Nothing runs before gaptraind's first instruction, or kFirstInstructionPatience without one.
  job_view_.job_id = job_.job_id;
  job_view_.min_nodes = job_.min_nodes;
  job_view_.max_nodes = job_.max_nodes;
}

int Launcher::run() {
  // "2-8", or the only counts it runs on as it was submitted ("2-8:2").
  NodeSizes sizes{job_.min_nodes, job_.max_nodes, {}};
  if (job_.registration) sizes.allowed = job_.registration->allowed_sizes;
  std::string range = to_text(sizes);
  if (sizes.allowed.empty() && sizes.min == sizes.max) range += "-" + range;
  say("job " + std::to_string(job_.job_id) + " on " + join(job_.nodes) + " (range " + range +
      "), controller " + options_.controller.host + ":" + std::to_string(options_.controller.port) +
      ", rendezvous " + job_.rdzv_host + ":" + std::to_string(job_.rdzv_port) + ", job file " +
      job_.job_file);
  started_ = Clock::now();
  next_poll_ = Clock::now();
  // The first report comes before any step starts, so a controller that already knows better
  // (a resize right at start, a job at home) is followed from the outset; without one, after
  // kFirstInstructionPatience, SLURM_JOB_NODELIST.
  report_and_follow();
  reconcile_and_act();
  for (;;) {
    const auto now = Clock::now();
    const auto wait = std::chrono::duration_cast<milliseconds>(next_wakeup(now) - now);
    if (const std::optional<int> signal = wait_for_signal(std::max(wait, milliseconds(0)))) {
      if (*signal == SIGTERM || *signal == SIGINT) {
        say(std::string("got ") + (*signal == SIGTERM ? "SIGTERM" : "SIGINT") +
            ": stopping every step");
        return stop_everything(128 + *signal);
      }
    }
    reap_steps(Clock::now());
    advance_stops(Clock::now());
    if (ack_now_) {
      reconcile_and_act();  // the acks of the steps that just left
      next_poll_ = Clock::now();
      ack_now_ = false;
    }
    if (Clock::now() >= next_poll_) report_and_follow();
    fail_open_without_instruction(Clock::now());
    if (store_host_) {
      if (const std::optional<std::string> line = store_host_->keep_running(Clock::now()))
        say(*line);
      if (store_host_->gave_up()) failed_ = true;
    }
    if (failed_ && !finishing_) {
      return stop_everything(1);
    }
    reconcile_and_act();
    if (finishing_ && !any_live()) {
      if (failed_)
        say("the training ended with a failure on some node");
      else
        say("the training finished; every step has ended");
      summarize();
      if (store_host_) store_host_->stop();
      std::remove(job_.hostfile.c_str());
      std::remove(job_.job_file.c_str());
      return failed_ ? 1 : 0;
    }
  }
}

Launcher::Clock::time_point Launcher::next_wakeup(Clock::time_point now) const {
  Clock::time_point wake = next_poll_;
  for (const auto& [node, step] : steps_) {
    if (step.phase == StepPhase::waiting) wake = std::min(wake, step.restart_at);
    if (step.phase == StepPhase::stopping) {
      // Re-try a SIGTERM not yet delivered at the next poll; the grace deadline otherwise.
      wake = std::min(wake, step.stop_since + options_.grace +
                                (step.srun_terminated ? kSrunKillAfter : milliseconds(0)));
      if (!step.term_delivered) wake = std::min(wake, std::max(step.term_after, now));
    }
  }
  return std::max(wake, now);
}

void Launcher::report_and_follow() {
  next_poll_ = Clock::now() + options_.poll;
  protocol::LauncherReport report;
  report.job_id = job_.job_id;
  // A step asked to leave is still live until it ends: gaptraind waits for it (up to the
  // drain's deadline) before it takes the node, and the step gets its time to leave.
  report.running = live_nodes(step_views(Clock::now()));
  report.drained = acks_;
  const ProgressFeed::Reading reading =
      progress_feed_.read(std::chrono::duration<double>(Clock::now().time_since_epoch()).count());
  if (reading.say) say(*reading.say);
  if (const std::optional<Progress>& progress = reading.progress) {
    report.samples_done = progress->samples_done;
    report.progress_time = progress->time;
    report.world_size = progress->world_size;
    report.grad_sqr = progress->grad_sqr;
    report.grad_var = progress->grad_var;
    if (!first_progress_) first_progress_ = progress;
    last_progress_ = progress;
  }
  restart_stranded(last_progress_);
  // Bounded by the poll period (at least 100 ms, at most 2 s): a slow controller delays the
  // next report, never the steps.
  const milliseconds timeout = std::clamp(options_.poll, milliseconds(100), milliseconds(2000));
  const ControllerAnswer answer =
      ask_controller(options_.controller, options_.munge_socket, report, timeout);
  if (answer.kind != ControllerAnswer::Kind::instruction) {
    // A refusal is most often the job's first report, sent before the plugin's registration
    // reached gaptraind, or one after gaptraind lost it: registering again settles it, and the
    // job's output should not read like a failure for that.
    if (answer.kind == ControllerAnswer::Kind::refused && register_again()) return;
    // Fail open: keep running what runs, ask again less and less often. One line per outage,
    // not per poll.
    if (!outage_) {
      say(std::string(answer.kind == ControllerAnswer::Kind::refused
                          ? "controller refused the report: "
                          : "controller unreachable: ") +
          answer.why + "; keeping the current steps and asking again, at most " +
          std::to_string(std::max(options_.poll, kMostBetweenReports).count()) + " ms apart");
    }
    outage_ = answer.why;
    next_poll_ = Clock::now() + next_report_in(options_.poll, ++unanswered_);
    return;
  }
  unanswered_ = 0;
  ever_answered_ = true;
  registration_retry_.answered();
  if (outage_) say("controller answering again");
  outage_.reset();
  // A job always holds its batch host: an empty list is no instruction to follow, unless the
  // job is at home, where it is a pause.
  if (answer.instruction.nodes.empty() && !answer.instruction.home) return;
  if (answer.instruction.home && !home_) start_home();
  instructed_ = true;
  const protocol::LaunchInstruction followed =
      without_taken_back(answer.instruction, taken_back_, job_.job_id);
  // What changed, said as what happens to the job.
  const std::vector<std::string> added = minus(wanted_nodes(followed), wanted_nodes(desired_));
  const std::vector<std::string> giving = minus(followed.drain, desired_.drain);
  if (!added.empty()) {
    ++grows_;
    say("grew onto " + join(added) + ": training on " + join(wanted_nodes(followed)));
  }
  const bool pausing = home_ && wanted_nodes(followed).empty();
  if (!giving.empty()) {
    ++shrinks_;
    say("giving " + join(giving) + " back to the cluster: " +
        (pausing
             ? std::string("the job pauses (its state in the checkpoint) until it gets nodes again")
             : "training goes on with " + join(wanted_nodes(followed))));
  } else if (pausing && !paused_) {
    say("no node to train on: the job waits on its home node until it gets some");
  }
  paused_ = pausing;
  desired_ = followed;
}

void Launcher::restart_stranded(const std::optional<Progress>& progress) {
  if (finishing_ || !progress) return;
  std::vector<RunningStep> running;
  for (const auto& [node, step] : steps_) {
    if (step.phase == StepPhase::running) running.push_back({node, step.started_at});
  }
  const std::vector<std::string> idle =
      stranded_.check(running, progress->world_size, progress->samples_done, Clock::now());
  if (idle.empty()) return;
  say("the training has used " + std::to_string(*progress->world_size) + " worker(s) on " +
      std::to_string(running.size()) + " node(s) for " + std::to_string(kStrandedPatience.count()) +
      " s: starting the training on " + join(idle) + " again so that it joins");
  for (const std::string& node : idle) request_stop(node, steps_.at(node));
}

bool Launcher::register_again() {
  if (!job_.registration || !registration_retry_.due(Clock::now())) return false;
  registration_retry_.sent(Clock::now());
  const milliseconds timeout = std::clamp(options_.poll, milliseconds(100), milliseconds(2000));
  const std::optional<std::string> refused =
      register_job(options_.controller, options_.munge_socket, *job_.registration, timeout);
  if (!refused) {
    // After an outage it said, or gaptraind losing the job, it is news; before any answer it
    // only won the race with the plugin's own registration: nothing to say.
    if (ever_answered_ || outage_) say("job registered with the controller again");
    return true;
  }
  say("registering the job again failed: " + *refused);
  return false;
}

std::vector<StepView> Launcher::step_views(Clock::time_point now) const {
  std::vector<StepView> views;
  for (const auto& [node, step] : steps_) {
    views.push_back({node, step.phase, step.phase == StepPhase::waiting && now >= step.restart_at});
  }
  return views;
}

void Launcher::reconcile_and_act() {
  const Actions actions = reconcile(step_views(Clock::now()), desired_, finishing_);
  acks_ = actions.drained;
  for (const std::string& node : actions.forget) {
    if (steps_.at(node).phase == StepPhase::done) {
      say("the step on " + node + " ended because its node left the job (a node failure), " +
          "not because the training finished");
    }
    steps_.erase(node);
  }
  // Only steps that ended on nodes still in the job say the training is over.
  const bool finished_somewhere = std::any_of(steps_.begin(), steps_.end(), [](const auto& entry) {
    return entry.second.phase == StepPhase::done;
  });
  if (finishing_ && !finished_somewhere) {
    say("the training goes on");
    finishing_ = false;
  }
  // The files first: a step asked to stop finds its node leaving in the job file whatever
  // signal reaches it.
  update_hostfile();
  update_job_file();
  for (const std::string& node : actions.stop) request_stop(node, steps_.at(node));
  for (const std::string& node : actions.start) start_step(node);
  pass_on_notices();
}

void Launcher::update_job_file() {
  JobFileView view = job_view_;
  view.nodes = wanted_nodes(desired_);
  view.leaving = desired_.drain;
  view.notice = desired_.notice;
  view.batch = desired_.batch;
  if (view.same_content(job_view_) && job_view_.generation > 0) return;
  view.generation = job_view_.generation + 1;
  try {
    write_atomically(job_.job_file, job_file_text(view));
    job_view_ = std::move(view);
    if (job_file_failure_.succeeded()) say("the job file is written again");
  } catch (const std::system_error& e) {
    if (auto line = job_file_failure_.failed(std::string("cannot update the job file: ") +
                                             e.what() + " (said once; tried again)")) {
      say(*line);
    }
  }
}

void Launcher::pass_on_notices() {
  const std::vector<std::string> fresh = notices_to_tell(noticed_, desired_.notice);
  if (fresh.empty()) return;
  // A plain command dies of SIGUSR1: only a training that asked for the signal, or says it
  // handles it, gets it (the job file carries the notice either way).
  const bool signal =
      options_.notice_signal != 0 &&
      (options_.notice_signal_asked || (last_progress_ && last_progress_->leaves_on_job_file));
  for (const std::string& node : fresh) {
    const double at = desired_.notice.at(node);
    say("notice: " + node + " will be taken back at about " + clock_time(at) + " (in " +
        std::to_string(std::max(0L, std::lround(at - unix_now()))) + " s)" +
        (signal ? ": telling the training (signal " + std::to_string(options_.notice_signal) + ")"
                : ""));
  }
  if (signal) {
    for (auto& [node, step] : steps_) {
      if (step.phase == StepPhase::running) (void)signal_step(step, options_.notice_signal);
    }
  }
}

void Launcher::update_hostfile() {
  std::vector<std::string> nodes = wanted_nodes(desired_);
  if (nodes == hostfile_nodes_) return;
  try {
    write_hostfile(job_.hostfile, nodes);
    hostfile_nodes_ = std::move(nodes);
    if (hostfile_failure_.succeeded()) say("the host file is written again");
  } catch (const std::system_error& e) {
    if (auto line = hostfile_failure_.failed(std::string("cannot update the host file: ") +
                                             e.what() + " (said once; tried again)")) {
      say(*line);
    }
  }
}

void Launcher::start_step(const std::string& node) {
  Step& step = steps_[node];
  step.name = "gaptrain." + node + "." + std::to_string(++serial_);
  // A node the job grew into is held by a satellite allocation: the step runs in that one.
  step.job_id = allocation_of(desired_, node, job_.job_id);
  // One task on exactly this node. --overlap: a restarted step must not queue behind the
  // previous one still completing on the node ("Requested nodes are busy"); --mem=0: the step
  // may use all of the job's memory there, where memory is tracked.
  std::vector<std::string> argv = {"srun",
                                   "--nodes=1",
                                   "--ntasks=1",
                                   "--nodelist=" + node,
                                   "--overlap",
                                   "--mem=0",
                                   "--jobid=" + std::to_string(step.job_id),
                                   "--job-name=" + step.name};
  argv.insert(argv.end(), options_.command.begin(), options_.command.end());
  const std::vector<std::string> env = worker_environment();
  try {
    step.pid = spawn(argv, env);
    step.phase = StepPhase::running;
    step.started_at = Clock::now();
    say("started the training on " + node + " (step " + step.name + ")");
  } catch (const std::system_error& e) {
    say("cannot start srun for " + node + ": " + e.what());
    step.pid = -1;
    step.phase = StepPhase::waiting;
    ++step.failures;
    step.restart_at = Clock::now() + backoff(step.failures);
    if (step.failures > options_.max_restarts) failed_ = true;
  }
}

void Launcher::request_stop(const std::string& node, Step& step) {
  step.phase = StepPhase::stopping;
  step.stop_since = Clock::now();
  if (last_progress_ && last_progress_->leaves_on_job_file && !finishing_ && !stopping_all_) {
    // The job file (rewritten in this same pass) and the notice signal tell it; SIGTERM only if
    // it has not left while it still has time to leave on it before the drain's deadline.
    const auto deadline = desired_.notice.find(node);
    step.term_after = step.stop_since +
                      wait_before_term(deadline == desired_.notice.end()
                                           ? std::nullopt
                                           : std::optional<double>(deadline->second - unix_now()),
                                       options_.grace);
    return;
  }
  say("asking the training on " + node + " to leave (SIGTERM; SIGKILL after " +
      std::to_string(options_.grace.count()) + " ms)");
  deliver_term(step);
}

void Launcher::deliver_term(Step& step) {
  if (signal_step(step, SIGTERM)) step.term_delivered = true;
}

// srun turns a SIGTERM it receives into SIGKILL of its tasks ("forcing job termination",
// verified on 22.05), so a signal goes through Slurm: scancel --signal=SIG JOB.STEP. The step id
// comes from squeue by the step's unique name. False when the step is not found (yet): tried
// again at the next wake-up.
bool Launcher::signal_step(Step& step, int signal) {
  const std::string job = std::to_string(step.job_id);
  const CommandOutput steps =
      run_command({"squeue", "-h", "-s", "-j", job, "-o", "%i %j"}, kCommandTimeout);
  if (!steps.ok) return false;
  std::istringstream lines(steps.out);
  std::string id;
  std::string name;
  while (lines >> id >> name) {
    if (name != step.name) continue;
    // Sent once: scancel 22.05 exits non-zero ("Kill job error on job step id N: Invalid job id
    // specified") for a step signal it did deliver (verified), so its status is not trusted and
    // a re-send would only hit the training with a second signal. The grace timer is the net.
    (void)run_command({"scancel", "--signal=" + std::to_string(signal), id}, kCommandTimeout);
    return true;
  }
  return false;
}

void Launcher::advance_stops(Clock::time_point now) {
  for (auto& [node, step] : steps_) {
    if (step.phase != StepPhase::stopping) continue;
    if (!step.term_delivered && !step.srun_terminated && now >= step.term_after) {
      if (step.term_after != Clock::time_point{}) {
        say("the training on " + node + " has not left by itself: SIGTERM");
      }
      deliver_term(step);
    }
    if (!step.srun_terminated && now >= step.stop_since + options_.grace) {
      say("the step on " + node + " outlived its grace time: killing it");
      kill(step.pid, SIGTERM);  // srun kills its tasks (SIGKILL) and exits
      step.srun_terminated = true;
    } else if (step.srun_terminated && now >= step.stop_since + options_.grace + kSrunKillAfter) {
      kill(step.pid, SIGKILL);
    }
  }
}

void Launcher::reap_steps(Clock::time_point now) {
  for (auto it = steps_.begin(); it != steps_.end();) {
    Step& step = it->second;
    const std::string& node = it->first;
    if (step.pid < 0 || step.phase == StepPhase::waiting || step.phase == StepPhase::done) {
      ++it;
      continue;
    }
    const std::optional<int> status = reap(step.pid);
    if (!status) {
      ++it;
      continue;
    }
    step.pid = -1;
    const StepExit exit = exit_on(step.job_id == job_.job_id, *status);
    const bool success = exit == StepExit::success || exit == StepExit::left;
    if (step.phase == StepPhase::stopping) {
      const double took = std::chrono::duration<double>(now - step.stop_since).count();
      std::ostringstream after;
      after.precision(2);
      after << std::fixed << took;
      say(node + " left the training " + after.str() + " s after it was asked to" +
          (success ? "" : " (" + describe_status(*status) + ")"));
      it = steps_.erase(it);
      // The drained node is acked by a report at once: gaptraind gives it to the regular job
      // waiting for it without waiting out the drain's deadline.
      ack_now_ = true;
      continue;
    }
    // A step that ran a while before failing starts a fresh count: the budget is for a node
    // that keeps failing, not for a long job's occasional crash.
    const int failures = exit != StepExit::failure && exit != StepExit::failed_for_good
                             ? step.failures
                             : (now - step.started_at >= kStableRun ? 0 : step.failures) + 1;
    switch (judge_step_end(exit, finishing_, holding_of(step.job_id, node), failures,
                           options_.max_restarts)) {
      case StepEnd::taken_back: {
        const std::string lost = node;
        const std::uint32_t allocation = step.job_id;
        it = steps_.erase(it);
        drop_node_taken(lost, allocation,
                        why_taken_back(exit, *status, allocation == job_.job_id, allocation));
        // Its worker is gone: Slurm's preemption need not wait out its GraceTime for the node.
        if (exit == StepExit::left && allocation != job_.job_id) {
          (void)run_command({"scancel", std::to_string(allocation)}, kCommandTimeout);
        }
        continue;
      }
      case StepEnd::finished:
        if (!finishing_) say("the training finished on " + node + ": waiting for the other nodes");
        finishing_ = true;
        step.phase = StepPhase::done;
        break;
      case StepEnd::ended_after_finish:
        say("the training on " + node + " ended (" + describe_status(*status) +
            ") after the training had finished: not counted");
        step.phase = StepPhase::done;
        break;
      case StepEnd::start_again:
        ++regroups_;
        step.phase = StepPhase::waiting;
        step.restart_at = now + milliseconds(500);
        say("the training on " + node +
            " asked to be started again (it rejoins the others, or "
            "the job goes on from its checkpoint): starting it again, not counted as a failure");
        break;
      case StepEnd::give_up:
        step.failures = failures;
        step.phase = StepPhase::waiting;
        say(exit == StepExit::failed_for_good
                ? "the training on " + node + " gave up (exit " +
                      std::to_string(kExitFailedForGood) +
                      ": it failed for good, its reason is above): the job fails"
                : "the step on " + node + " failed (" + describe_status(*status) + ") " +
                      std::to_string(failures) + " times in a row: giving up");
        failed_ = true;
        break;
      case StepEnd::restart: {
        step.failures = failures;
        step.phase = StepPhase::waiting;
        const milliseconds delay = backoff(failures);
        step.restart_at = now + delay;
        say("the step on " + node + " failed (" + describe_status(*status) + "): restart " +
            std::to_string(failures) + " of " + std::to_string(options_.max_restarts) + " in " +
            std::to_string(delay.count()) + " ms");
        break;
      }
    }
    ++it;
  }
}

Holding Launcher::holding_of(std::uint32_t allocation, const std::string& node) const {
  const CommandOutput answer = run_command(holding_query(node), kCommandTimeout);
  return holding_from_answer(answer.ok, answer.out, allocation);
}

void Launcher::drop_node_taken(const std::string& node, std::uint32_t allocation,
                               const std::string& why) {
  taken_back_[node] = allocation;
  ++nodes_taken_back_;
  desired_ = without_taken_back(desired_, taken_back_, job_.job_id);
  say(node + " was taken back from the job (" + why + "): " +
      (wanted_nodes(desired_).empty() && home_
           ? std::string("no node left, the job pauses until gaptraind gives it nodes")
           : "training goes on with " + join(wanted_nodes(desired_))));
}

bool Launcher::any_live() const {
  return std::any_of(steps_.begin(), steps_.end(), [](const auto& entry) {
    return entry.second.phase == StepPhase::running || entry.second.phase == StepPhase::stopping;
  });
}

int Launcher::stop_everything(int exit_code) {
  stopping_all_ = true;  // the job file does not change: every step gets SIGTERM at once
  for (auto& [node, step] : steps_) {
    if (step.phase == StepPhase::running) request_stop(node, step);
  }
  while (any_live()) {
    // A second SIGTERM/SIGINT changes nothing: the grace path already bounds the wait. SIGCHLD
    // ends the wait early; otherwise look again every 200 ms.
    (void)wait_for_signal(milliseconds(200));
    reap_steps(Clock::now());
    advance_stops(Clock::now());
  }
  if (store_host_) store_host_->stop();
  std::remove(job_.hostfile.c_str());
  std::remove(job_.job_file.c_str());
  say("every step stopped; exiting with " + std::to_string(exit_code));
  summarize();
  return exit_code;
}

}  // namespace gaptrain::launch
