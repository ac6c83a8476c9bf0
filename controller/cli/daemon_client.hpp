// What `gaptrain status` and `gaptrain job` share: finding gaptraind, sealing a request with
// munge, and reading its one-line JSON answer.
#pragma once

#include <json/value.h>

#include <optional>
#include <string>
#include <string_view>

#include "command.hpp"
#include "gaptrain/protocol.hpp"

namespace gaptrain::cli {

struct DaemonArgs {
  std::string controller;
  std::string munge_socket;
  double timeout_s = 5.0;
};

// Where the daemon is, first found wins (for a command's --help).
inline constexpr const char* kDaemonWhereHelp = R"(Where the daemon is, first found wins:
  --controller HOST:PORT, env GAPTRAIN_CONTROLLER, the "listen" of /etc/gaptrain/gaptraind.json,
  127.0.0.1:6830.
The request is sealed with munge: --munge-socket PATH or env GAPTRAIN_MUNGE_SOCKET for a munged
that does not use the default socket.)";

// --controller, --munge-socket and --timeout on `app`.
void add_daemon_options(CLI::App& app, DaemonArgs& args);

struct DaemonAnswer {
  // The daemon's answer object ({"ok":...}); empty when there is none (reported on stderr,
  // one line after "gaptrain COMMAND: ", and `exit_status` says why).
  std::optional<Json::Value> answer;
  int exit_status = kExitOk;  // kExitBadInput: bad --controller or configuration file
  std::string where;          // the daemon's address and where it came from, for messages
};

DaemonAnswer ask_daemon(const DaemonArgs& args, const protocol::Request& request,
                        std::string_view command);

}  // namespace gaptrain::cli
