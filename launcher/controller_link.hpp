// One LauncherReport to gaptraind and its answer, within a deadline. Never throws: the launcher
// fails open (keeps running what runs) whatever happens here.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gaptrain/protocol.hpp"
#include "gaptrain/wire_client.hpp"

namespace gaptrain::launch {

struct ControllerAnswer {
  enum class Kind {
    instruction,  // `instruction` holds the controller's answer
    refused,      // the controller answered but refused (not registered, not allowed...)
    unreachable,  // no answer: down, slow, or munge failed
  };
  Kind kind = Kind::unreachable;
  protocol::LaunchInstruction instruction;
  std::string why;  // refused / unreachable: one line
};

ControllerAnswer ask_controller(const wire::Endpoint& controller, const std::string& munge_socket,
                                const protocol::LauncherReport& report,
                                std::chrono::milliseconds timeout) noexcept;

// Sends the job's registration again (registration_retry.hpp). Empty when gaptraind accepted
// it; otherwise why not (refused or unreachable), one line.
std::optional<std::string> register_job(const wire::Endpoint& controller,
                                        const std::string& munge_socket,
                                        const protocol::JobRegistration& registration,
                                        std::chrono::milliseconds timeout) noexcept;

// What gaptraind recorded of the job (the "job" request: docs/protocol.md), for the end-of-job
// summary: node-hours and seconds lost to resizes. Empty when it cannot tell (down, refused,
// not in its history).
struct JobTotals {
  double node_hours = 0.0;
  double resize_lost_s = 0.0;
  // Its resizes by kind, in `gaptrain job`'s words ("grow", "reclaim", "shrink", "requeue"),
  // in that order; admissions left out.
  std::vector<std::pair<std::string, int>> resizes;
};
// The totals in gaptraind's answer to a "job" request, or empty when it is no such answer.
std::optional<JobTotals> job_totals_from_answer(const std::string& text);
// The summary's resize counts said as `gaptrain job` says them: "2 grow(s), 1 reclaim(s)";
// "no resize" when there was none.
std::string resize_counts_text(const JobTotals& totals);
std::optional<JobTotals> job_totals(const wire::Endpoint& controller,
                                    const std::string& munge_socket, std::uint32_t job_id,
                                    std::chrono::milliseconds timeout) noexcept;

// The registration the plugin left in the job's environment (GAPTRAIN_REGISTRATION), when it
// is one of job `job_id`; otherwise empty with `why` set (`text` empty: nothing to say).
std::optional<protocol::JobRegistration> registration_from_env(const std::string& text,
                                                               std::uint32_t job_id,
                                                               std::string& why);

}  // namespace gaptrain::launch
