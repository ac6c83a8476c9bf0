#include "operation_command.hpp"

#include <iostream>
#include <memory>

#include "daemon_client.hpp"
#include "gaptrain/cli11.hpp"
#include "gaptrain/protocol.hpp"
#include "one_line.hpp"

namespace gaptrain::cli {

namespace {

const char* summary(const std::string& name) {
  if (name == "pause") {
    return "Admins: stop admitting and growing elastic jobs (leases kept, reclaims served)";
  }
  if (name == "drain") {
    return "Admins: as pause, and give back every satellite (jobs keep their own nodes)";
  }
  return "Admins: end a pause or drain";
}

int run_operation(const std::string& name, const DaemonArgs& daemon) {
  const DaemonAnswer asked = ask_daemon(daemon, protocol::OperationRequest{name}, name);
  if (!asked.answer) return asked.exit_status;
  const Json::Value& answer = *asked.answer;
  if (!answer["ok"].asBool()) {
    std::cerr << "gaptrain " << name << ": gaptraind at " << asked.where
              << " refused: " << one_line(answer["error"].asString()) << '\n';
    return kExitFailure;
  }
  std::cout << "gaptraind is " << answer["operation"].asString() << '\n';
  return kExitOk;
}

}  // namespace

Command add_operation_command(CLI::App& parent, const std::string& name) {
  auto daemon = std::make_shared<DaemonArgs>();
  CLI::App* app = parent.add_subcommand(name, summary(name));
  app->footer(kDaemonWhereHelp);
  add_daemon_options(*app, *daemon);
  return Command{app, [name, daemon] { return run_operation(name, *daemon); }};
}

}  // namespace gaptrain::cli
