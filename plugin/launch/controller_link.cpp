#include "controller_link.hpp"

#include <exception>

#include "gaptrain/input_error.hpp"
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

}  // namespace gaptrain::launch
