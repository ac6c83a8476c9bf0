// One LauncherReport to gaptraind and its answer, within a deadline. Never throws: the launcher
// fails open (keeps running what runs) whatever happens here.
#pragma once

#include <chrono>
#include <string>

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

}  // namespace gaptrain::launch
