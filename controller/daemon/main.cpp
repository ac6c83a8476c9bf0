// gaptraind: the daemon beside slurmctld. Validated config -> built objects -> event loop.
// Exit status: 0 stopped by SIGTERM/SIGINT (or --check-config passed), 1 runtime failure,
// 2 bad configuration or command line.
#include <csignal>
#include <exception>
#include <iostream>
#include <optional>
#include <string>
#include <system_error>

#include "core/config.hpp"
#include "daemon.hpp"
#include "gaptrain/cli11.hpp"
#include "gaptrain/input_error.hpp"
#include "gaptrain/text_file.hpp"
#include "gaptrain/version.hpp"
#include "libslurm_actions.hpp"
#include "slurm_source.hpp"
#include "state_lock.hpp"

int main(int argc, char** argv) {
  using namespace gaptrain::daemon;
  namespace core = gaptrain::core;
  std::string config_path = core::kDefaultConfigPath;
  bool check_only = false;
  CLI::App app{"gaptraind: keeps the live view of a Slurm cluster's holes and elastic jobs.",
               "gaptraind"};
  app.set_version_flag("--version", "gaptraind " + std::string(gaptrain::kVersion));
  app.add_option("--config", config_path,
                 "JSON configuration (default " + std::string(core::kDefaultConfigPath) + ")")
      ->type_name("FILE");
  app.add_flag("--check-config", check_only, "Validate the configuration and exit");
  app.footer(core::settings_help());
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }

  core::DaemonConfig config;
  try {
    config = core::parse_config(gaptrain::read_text_file(config_path));
  } catch (const gaptrain::InputError& e) {
    std::cerr << "gaptraind: " << config_path << ": " << e.what() << '\n';
    return 2;
  } catch (const std::system_error& e) {
    std::cerr << "gaptraind: cannot read the configuration: " << e.what()
              << " (give another with --config FILE)\n";
    return 2;
  }
  if (check_only) {
    std::cout << "gaptraind: " << config_path << ": configuration is valid\n";
    return 0;
  }

  // Before anything is bound or polled: a second daemon on the same state must not start.
  std::optional<StateLock> state_lock;
  if (!config.state_file.empty()) {
    try {
      state_lock.emplace(config.state_file);
    } catch (const StateFileInUse& e) {
      std::cerr << "gaptraind: " << e.what() << '\n';
      return 1;
    } catch (const UnsafeStateDirectory& e) {
      std::cerr << "gaptraind: refusing to start: " << e.what() << '\n';
      return 1;
    } catch (const std::system_error& e) {
      std::cerr << "gaptraind: " << e.what()
                << " (create its directory, or set state_file to \"\" in " << config_path << ")\n";
      return 1;
    }
  }

  // Block the signals the loop handles before anything could start a thread, so they are only
  // ever delivered through sd-event's signalfd.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGHUP);
  sigprocmask(SIG_BLOCK, &signals, nullptr);
  std::signal(SIGPIPE, SIG_IGN);

  try {
    SlurmSource slurm;  // initializes libslurm, which LibslurmActions needs
    LibslurmActions actions;
    Daemon daemon(config_path, config, slurm, actions);
    return daemon.run();
  } catch (const std::system_error& e) {
    std::cerr << "gaptraind: " << e.what() << '\n';
  } catch (const StartError& e) {
    std::cerr << "gaptraind: " << e.what() << '\n';
  } catch (const std::exception& e) {
    std::cerr << "gaptraind: internal error: " << e.what() << '\n';
  }
  return 1;
}
