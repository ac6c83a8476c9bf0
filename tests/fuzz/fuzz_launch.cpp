// gaptrain-launch's inputs (launcher/): its command line, parse_options() with the input's
// lines as the arguments after argv[0] and an empty environment, and the progress file the
// training appends to, last_progress() on the whole input. Neither throws: a bad command
// line is a message and an exit code, a bad progress line no value. What is accepted must keep
// the bounds the options declare.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz_check.hpp"
#include "launcher/launch_options.hpp"
#include "launcher/progress.hpp"

namespace launch = gaptrain::launch;
using gaptrain::fuzz::check;

namespace {

void command_line(std::string_view text) {
  std::vector<std::string> args{"gaptrain-launch"};
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    args.emplace_back(text.substr(0, end));
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
  }
  std::vector<const char*> argv;
  for (const std::string& arg : args) argv.push_back(arg.c_str());
  argv.push_back(nullptr);

  const launch::GetEnv no_environment = [](const char*) -> const char* { return nullptr; };
  std::ostringstream out;
  std::ostringstream err;
  int exit_code = -1;
  const std::optional<launch::LaunchOptions> options = launch::parse_options(
      static_cast<int>(args.size()), argv.data(), no_environment, out, err, exit_code);
  if (!options) {
    check(exit_code >= 0, "no options and no exit code");
    return;
  }
  check(exit_code == 0, "options with a non-zero exit code");
  check(!options->controller.host.empty() && options->controller.port != 0, "bad controller");
  check(options->poll.count() >= 50 && options->poll.count() <= 60000, "--poll-ms out of range");
  check(options->grace.count() >= 0 && options->grace.count() <= 3'600'000,
        "--grace-s out of range");
  check(options->max_restarts >= 0 && options->max_restarts <= 1000, "--max-restarts out of range");
  check(!options->command.empty(), "no command");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = gaptrain::fuzz::as_text(data, size);
  command_line(text);
  const std::optional<launch::Progress> done = launch::last_progress(text);
  check(!done || (std::isfinite(done->samples_done) && done->samples_done >= 0.0),
        "samples_done not a number >= 0");
  check(!done || !done->world_size || *done->world_size >= 1, "world_size not positive");
  return 0;
}
