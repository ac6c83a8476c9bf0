// The `gaptrain` executable: builds the App, lets each subcommand register itself, dispatches.
// No exception leaves main(): anything unexpected is an internal error with exit status 1.
#include <array>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "command.hpp"
#include "gaptrain/cli11.hpp"
#include "gaptrain/version.hpp"
#include "job_command.hpp"
#include "operation_command.hpp"
#include "simulate_command.hpp"
#include "solve_command.hpp"
#include "status_command.hpp"
#include "submit_command.hpp"

int main(int argc, char** argv) {
  using namespace gaptrain::cli;
  try {
    if (argc >= 2 && std::string(argv[1]) == "submit") {
      return run_submit(std::vector<std::string>(argv + 2, argv + argc));
    }
    CLI::App app{"gaptrain: fills idle Slurm nodes with elastic DNN training.", "gaptrain"};
    app.set_version_flag("--version", "gaptrain " + std::string(gaptrain::kVersion),
                         "Print the version and exit");
    app.require_subcommand(1);
    app.footer(
        "Run 'gaptrain COMMAND --help' for a command's input and output.\n"
        "Exit status: 0 success, 1 failure (e.g. the solver failed), 2 bad input or usage.");
    const std::array commands{add_solve_command(app),
                              add_simulate_command(app),
                              add_status_command(app),
                              add_submit_command(app),
                              add_job_command(app),
                              add_operation_command(app, "pause"),
                              add_operation_command(app, "resume"),
                              add_operation_command(app, "drain")};

    try {
      app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
      // --help and --version arrive here too, with exit code 0.
      return app.exit(e) == 0 ? kExitOk : kExitBadInput;
    }
    for (const Command& command : commands) {
      if (app.got_subcommand(command.app)) return command.run();
    }
    return kExitBadInput;  // unreachable: require_subcommand(1) rejected the command line
  } catch (const std::exception& e) {
    std::cerr << "gaptrain: internal error: " << e.what() << '\n';
  } catch (...) {
    std::cerr << "gaptrain: internal error: unknown exception\n";
  }
  return kExitFailure;
}
