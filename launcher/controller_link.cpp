#include "controller_link.hpp"

#include <exception>
#include <variant>

#include "gaptrain/input_error.hpp"
#include "gaptrain/json_text.hpp"
#include "gaptrain/munge_envelope.hpp"

namespace gaptrain::launch {

ControllerAnswer ask_controller(const wire::Endpoint& controller, const std::string& munge_socket,
                                const protocol::LauncherReport& report,
                                std::chrono::milliseconds timeout) noexcept {
  ControllerAnswer answer;
  try {
    std::string credential;
    try {
      credential = munge::seal(protocol::encode(report), munge_socket);
    } catch (const munge::MungeError& e) {
      answer.why = std::string("munge: ") + e.what();
      return answer;
    }
    const wire::Reply reply = wire::request(controller, credential, timeout);
    if (!reply.delivered) {
      answer.why = reply.text;
      return answer;
    }
    try {
      answer.instruction = protocol::decode_launch_reply(reply.text);
      answer.kind = ControllerAnswer::Kind::instruction;
    } catch (const InputError& e) {
      answer.kind = ControllerAnswer::Kind::refused;
      // A refusal carries the daemon's text; anything else is a reply we do not understand.
      answer.why = e.field() == "error" ? std::string(e.what()).substr(7)
                                        : std::string("unexpected reply: ") + e.what();
    }
  } catch (const std::exception& e) {
    answer.kind = ControllerAnswer::Kind::unreachable;
    answer.why = e.what();
  }
  return answer;
}

std::optional<std::string> register_job(const wire::Endpoint& controller,
                                        const std::string& munge_socket,
                                        const protocol::JobRegistration& registration,
                                        std::chrono::milliseconds timeout) noexcept {
  try {
    std::string credential;
    try {
      credential = munge::seal(protocol::encode(registration), munge_socket);
    } catch (const munge::MungeError& e) {
      return std::string("munge: ") + e.what();
    }
    const wire::Reply reply = wire::request(controller, credential, timeout);
    if (!reply.delivered) return reply.text;
    // The daemon answers a registration as any request: {"ok":true} or {"ok":false,"error":...}.
    const Json::Value answer = parse_strict_json(reply.text);
    if (!answer.isObject()) return std::string("unexpected reply");
    if (answer["ok"].isBool() && answer["ok"].asBool()) return std::nullopt;
    return answer["error"].isString() ? answer["error"].asString()
                                      : std::string("unexpected reply");
  } catch (const std::exception& e) {
    return std::string(e.what());
  }
}

std::optional<JobTotals> job_totals(const wire::Endpoint& controller,
                                    const std::string& munge_socket, std::uint32_t job_id,
                                    std::chrono::milliseconds timeout) noexcept {
  try {
    protocol::JobRequest request;
    request.job_id = job_id;
    const std::string credential = munge::seal(protocol::encode(request), munge_socket);
    const wire::Reply reply = wire::request(controller, credential, timeout);
    if (!reply.delivered) return std::nullopt;
    return job_totals_from_answer(reply.text);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::optional<JobTotals> job_totals_from_answer(const std::string& text) {
  try {
    const Json::Value answer = parse_strict_json(text);
    if (!answer.isObject() || !answer["ok"].isBool() || !answer["ok"].asBool()) return std::nullopt;
    const Json::Value& job = answer["job"];
    if (!job.isObject() || !job["node_hours"].isNumeric() || !job["resize_lost_s"].isNumeric()) {
      return std::nullopt;
    }
    JobTotals totals{job["node_hours"].asDouble(), job["resize_lost_s"].asDouble(), {}};
    for (const char* kind : {"grow", "reclaim", "shrink", "requeue"}) {
      int count = 0;
      for (const Json::Value& resize : job["resizes"]) {
        if (resize.isObject() && resize["kind"].isString() && resize["kind"].asString() == kind) {
          ++count;
        }
      }
      if (count > 0) totals.resizes.emplace_back(kind, count);
    }
    return totals;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::string resize_counts_text(const JobTotals& totals) {
  std::string text;
  for (const auto& [kind, count] : totals.resizes) {
    text += (text.empty() ? "" : ", ") + std::to_string(count) + " " + kind + "(s)";
  }
  return text.empty() ? "no resize" : text;
}

std::optional<protocol::JobRegistration> registration_from_env(const std::string& text,
                                                               std::uint32_t job_id,
                                                               std::string& why) {
  why.clear();
  if (text.empty()) return std::nullopt;
  try {
    const protocol::Request request = protocol::decode(text);
    const auto* registration = std::get_if<protocol::JobRegistration>(&request);
    if (registration == nullptr || registration->job_id != job_id) {
      why = "GAPTRAIN_REGISTRATION is not the registration of job " + std::to_string(job_id);
      return std::nullopt;
    }
    return *registration;
  } catch (const InputError& e) {
    why = std::string("GAPTRAIN_REGISTRATION: ") + e.what();
    return std::nullopt;
  }
}

}  // namespace gaptrain::launch
