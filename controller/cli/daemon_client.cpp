#include "daemon_client.hpp"

#include <json/json.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <system_error>
#include <utility>

#include "core/config.hpp"
#include "gaptrain/cli11.hpp"
#include "gaptrain/input_error.hpp"
#include "gaptrain/munge_envelope.hpp"
#include "gaptrain/text_file.hpp"
#include "gaptrain/wire_client.hpp"
#include "one_line.hpp"

namespace gaptrain::cli {

namespace {

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

class Reporter {
 public:
  explicit Reporter(std::string_view command) : command_(command) {}
  void operator()(std::string_view message) const {
    std::cerr << "gaptrain " << command_ << ": " << one_line(message) << '\n';
  }

 private:
  std::string_view command_;
};

// Where the daemon listens, and where that came from (for the error message). Empty when the
// configured value is bad (already reported).
std::optional<std::pair<wire::Endpoint, std::string>> find_controller(const DaemonArgs& args,
                                                                      const Reporter& report) {
  std::string text = args.controller;
  std::string origin = "--controller";
  if (text.empty()) {
    text = env("GAPTRAIN_CONTROLLER");
    origin = "GAPTRAIN_CONTROLLER";
  }
  if (text.empty()) {
    origin = core::kDefaultConfigPath;
    try {
      text = core::to_string(core::parse_config(read_text_file(core::kDefaultConfigPath)).listen);
    } catch (const InputError& e) {
      report(std::string(core::kDefaultConfigPath) + ": " + e.what() +
             " (or give --controller HOST:PORT)");
      return std::nullopt;
    } catch (const std::system_error&) {
      // No configuration on this host: the daemon's default address.
      text = core::to_string(core::ListenAddress{});
      origin = "the default";
    }
  }
  auto endpoint = wire::parse_endpoint(text);
  if (!endpoint) {
    report("\"" + text + "\" (from " + origin + ") is not HOST:PORT, e.g. 127.0.0.1:6830");
    return std::nullopt;
  }
  return std::make_pair(*endpoint, text + " (from " + origin + ")");
}

}  // namespace

void add_daemon_options(CLI::App& app, DaemonArgs& args) {
  app.add_option("--controller", args.controller, "gaptraind's address")->type_name("HOST:PORT");
  app.add_option("--munge-socket", args.munge_socket, "munged's socket")->type_name("PATH");
  app.add_option("--timeout", args.timeout_s, "Seconds to wait for the daemon (default 5)")
      ->type_name("SECONDS")
      ->check(CLI::Range(0.1, 600.0));
}

DaemonAnswer ask_daemon(const DaemonArgs& args, const protocol::Request& request,
                        std::string_view command) {
  const Reporter report(command);
  DaemonAnswer out;
  const auto controller = find_controller(args, report);
  if (!controller) {
    out.exit_status = kExitBadInput;
    return out;
  }
  const auto& [endpoint, where] = *controller;
  out.where = where;
  out.exit_status = kExitFailure;
  std::string munge_socket = args.munge_socket;
  if (munge_socket.empty()) munge_socket = env("GAPTRAIN_MUNGE_SOCKET");

  std::string credential;
  try {
    credential = munge::seal(protocol::encode(request), munge_socket);
  } catch (const munge::MungeError& e) {
    report(std::string("cannot get a munge credential: ") + e.what() +
           " (is munged running? give its socket with --munge-socket or GAPTRAIN_MUNGE_SOCKET)");
    return out;
  }
  const auto timeout = std::chrono::milliseconds(static_cast<long long>(args.timeout_s * 1000.0));
  const wire::Reply reply = wire::request(endpoint, credential, timeout);
  if (!reply.delivered) {
    report("cannot reach gaptraind at " + where + ": " + reply.text +
           "; is it running? point at it with --controller HOST:PORT or GAPTRAIN_CONTROLLER");
    return out;
  }

  Json::Value answer;
  Json::CharReaderBuilder builder;
  const std::unique_ptr<Json::CharReader> reader(builder.newCharReader());
  std::string errors;
  if (!reader->parse(reply.text.data(), reply.text.data() + reply.text.size(), &answer, &errors) ||
      !answer.isObject()) {
    report("gaptraind at " + where +
           " answered something that is not JSON: " + reply.text.substr(0, 200));
    return out;
  }
  out.answer = std::move(answer);
  out.exit_status = kExitOk;
  return out;
}

}  // namespace gaptrain::cli
