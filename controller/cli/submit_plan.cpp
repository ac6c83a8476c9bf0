#include "submit_plan.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <system_error>

#include "gaptrain/bounds.hpp"
#include "gaptrain/node_sizes.hpp"
#include "gaptrain/parse_number.hpp"
#include "gaptrain/protocol.hpp"

namespace gaptrain::cli {

namespace {

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.rfind(prefix, 0) == 0;
}

// The value of option `name` at args[i] ("--name=V" or "--name V"; short "-N V" or "-NV"),
// advancing i past it. Empty when args[i] is not that option.
std::optional<std::string> option_value(const std::vector<std::string>& args, std::size_t& i,
                                        const std::string& name, const std::string& short_name,
                                        std::string& error) {
  const std::string& arg = args[i];
  std::string value;
  if (arg == name || (!short_name.empty() && arg == short_name)) {
    if (i + 1 >= args.size()) {
      error = arg + " needs a value";
      return std::nullopt;
    }
    value = args[++i];
  } else if (starts_with(arg, name + "=")) {
    value = arg.substr(name.size() + 1);
  } else if (!short_name.empty() && starts_with(arg, short_name) &&
             arg.size() > short_name.size()) {
    value = arg.substr(short_name.size());
  } else {
    return std::nullopt;
  }
  return value;
}

bool is_partition_option(const std::string& arg) {
  return arg == "-p" || arg == "--partition" || starts_with(arg, "--partition=") ||
         (starts_with(arg, "-p") && arg.size() > 2);
}

// sbatch's --begin (-b): a begin time of the user's own, which parking would replace.
bool is_begin_option(const std::string& arg) {
  return arg == "-b" || arg == "--begin" || starts_with(arg, "--begin=") ||
         (starts_with(arg, "-b") && arg.size() > 2);
}

bool is_name_option(const std::string& arg) {
  return arg == "-J" || arg == "--job-name" || starts_with(arg, "--job-name=") ||
         (starts_with(arg, "-J") && arg.size() > 2);
}

// "M0:MAX" or "M0:MAX:PERNODE" under the registration's rule (protocol::batch_range_problem).
std::optional<BatchRange> parse_batch(const std::string& text, std::string& error) {
  const std::optional<BatchRange> range = protocol::batch_range_from_text(text);
  if (!range) {
    error =
        "--batch: expected M0:MAX or M0:MAX:PERNODE, whole numbers of samples with 1 <= M0 "
        "<= MAX and PERNODE >= 1 (e.g. 128:4096:256), got \"" +
        text + "\"";
    return std::nullopt;
  }
  if (auto problem = protocol::batch_range_problem(*range)) {
    error = "--batch: " + *problem + " (write M0:MAX[:PERNODE], e.g. 128:4096:256)";
    return std::nullopt;
  }
  return range;
}

// The shortest text that reads back as `value` (sbatch gets what the user meant, not 6 digits).
std::string number_text(double value) {
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

std::string base_name(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The job's name: the script's, or the command's (python3 SCRIPT: the script's).
std::string job_name(const std::vector<std::string>& command) {
  for (const std::string& word : command) {
    if (word.empty() || word[0] == '-') continue;
    const std::string name = base_name(word);
    if (starts_with(name, "python") || name == "env" || name == "exec") continue;
    return name;
  }
  return base_name(command.front());
}

}  // namespace

std::optional<SubmitRequest> parse_submit(const std::vector<std::string>& args,
                                          std::string& error) {
  SubmitRequest request;
  bool range_given = false;
  std::size_t i = 0;
  for (; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") {
      request.command.assign(args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
      break;
    }
    if (arg == "--torchrun") {
      request.torchrun = true;
      request.command.assign(args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
      if (!request.command.empty() && request.command.front() == "--") {
        request.command.erase(request.command.begin());
      }
      break;
    }
    if (const auto range = option_value(args, i, "--nodes", "-N", error)) {
      // Given once, for Slurm (MIN-MAX), the plugin and the launcher alike.
      const std::optional<NodeSizes> sizes = node_sizes_from_text(*range);
      if (!sizes || sizes->min < 1 || sizes->max < sizes->min) {
        error =
            "-N: expected MIN-MAX (e.g. 1-8) or N, with 1 <= MIN <= MAX, or only some counts "
            "(2-8:2, 1,2,4,8), got \"" +
            *range + "\"";
        return std::nullopt;
      }
      if (const std::optional<std::string> problem = node_sizes_problem(*sizes)) {
        error = "-N: " + *problem;
        return std::nullopt;
      }
      request.min_nodes = sizes->min;
      request.max_nodes = sizes->max;
      request.allowed_sizes = sizes->allowed;
      range_given = true;
    } else if (const auto curve = option_value(args, i, "--curve", "", error)) {
      request.curve_file = *curve;
    } else if (const auto cost = option_value(args, i, "--cost", "", error)) {
      request.cost = *cost;
    } else if (const auto notice = option_value(args, i, "--notice", "", error)) {
      char* end = nullptr;
      const double seconds = std::strtod(notice->c_str(), &end);
      if (notice->empty() || *end != '\0' || !std::isfinite(seconds) || seconds < 0.0 ||
          seconds > 3600.0) {
        error = "--notice: expected seconds from 0 to 3600, got \"" + *notice + "\"";
        return std::nullopt;
      }
      request.notice_s = seconds;
    } else if (const auto batch = option_value(args, i, "--batch", "", error)) {
      request.batch = parse_batch(*batch, error);
      if (!request.batch) return std::nullopt;
    } else if (const auto phi = option_value(args, i, "--noise-scale", "", error)) {
      char* end = nullptr;
      const double value = std::strtod(phi->c_str(), &end);
      if (phi->empty() || *end != '\0' || protocol::noise_scale_problem(value)) {
        error =
            "--noise-scale: expected the gradient noise scale in samples at M0, a number "
            "from 0 to 1e15 (leave it out to have gaptraind learn it), got \"" +
            *phi + "\"";
        return std::nullopt;
      }
      request.noise_scale = value;
    } else if (const auto python = option_value(args, i, "--python", "", error)) {
      if (python->empty()) {
        error =
            "--python: expected the path of a Python interpreter, e.g. --python $(which python3)";
        return std::nullopt;
      }
      request.python = *python;
      request.python_given = true;
    } else if (const auto restarts = option_value(args, i, "--max-restarts", "", error)) {
      const std::optional<int> value = parse_number<int>(*restarts);
      if (!value || *value < 0 || *value > 1000) {
        error = "--max-restarts: expected a whole number from 0 to 1000, got \"" + *restarts + "\"";
        return std::nullopt;
      }
      request.max_restarts = value;
    } else if (arg == "--mix-types") {
      request.mix_types = true;
    } else if (arg == "--parsable") {
      request.parsable = true;
    } else if (arg == "--dry-run") {
      request.dry_run = true;
    } else if (arg == "--hold") {
      request.hold = true;
    } else if (!error.empty()) {
      return std::nullopt;  // an option of ours without its value
    } else if (arg == "--no-kill" || starts_with(arg, "--elastic") || arg == "--wrap" ||
               starts_with(arg, "--wrap=")) {
      error = arg + " is what gaptrain submit writes for you: leave it out";
      return std::nullopt;
    } else {
      // Parking is a begin time: a begin time of the user's own is kept, and the job held.
      if (is_begin_option(arg)) request.hold = true;
      request.sbatch_args.push_back(arg);
    }
  }
  if (!error.empty()) return std::nullopt;
  if (!range_given) {
    error = "give the node range: -N MIN-MAX (e.g. -N 1-8)";
    return std::nullopt;
  }
  if (request.noise_scale && !request.batch) {
    error = "--noise-scale needs the batch range: add --batch M0:MAX (e.g. --batch 128:4096)";
    return std::nullopt;
  }
  if (request.python_given && !request.torchrun) {
    error =
        "--python is the interpreter of --torchrun: a command after -- names its own (-- "
        "/path/to/python3 train.py ...)";
    return std::nullopt;
  }
  if (request.command.empty()) {
    error = request.torchrun ? "--torchrun needs the script: --torchrun SCRIPT [ARGS...]"
                             : "give the training command after --: gaptrain submit -N 1-8 -- "
                               "python3 train.py ... (or --torchrun SCRIPT ...)";
    return std::nullopt;
  }
  return request;
}

std::string shell_quote(const std::string& word) {
  const bool safe = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("@%+=:,./_-").find(c) != std::string_view::npos;
  });
  if (safe) return word;
  std::string quoted = "'";
  for (const char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::vector<std::string> sbatch_command(const SubmitRequest& request, const SubmitSite& site) {
  const std::string range =
      request.min_nodes == request.max_nodes
          ? std::to_string(request.min_nodes)
          : std::to_string(request.min_nodes) + "-" + std::to_string(request.max_nodes);
  // Parked (a begin time far ahead: gaptraind admits it by Slurm's priority), or held.
  // "now+365days" is what controller/core/parking.hpp's kParkForS writes too.
  std::vector<std::string> argv = {"sbatch", request.hold ? "--hold" : "--begin=now+365days",
                                   "--no-kill"};
  const bool own_partition =
      std::any_of(request.sbatch_args.begin(), request.sbatch_args.end(), is_partition_option);
  if (!own_partition) argv.push_back("--partition=" + site.elastic_partition);
  argv.push_back("--nodes=" + range);
  argv.push_back("--elastic=" +
                 to_text(NodeSizes{request.min_nodes, request.max_nodes, request.allowed_sizes}));
  if (!request.curve_file.empty()) argv.push_back("--elastic-curve=" + request.curve_file);
  if (!request.cost.empty()) argv.push_back("--elastic-cost=" + request.cost);
  if (request.notice_s) {
    std::string seconds = std::to_string(*request.notice_s);
    seconds.erase(seconds.find_last_not_of('0') + 1);
    if (seconds.back() == '.') seconds.pop_back();
    argv.push_back("--elastic-notice=" + seconds);
  }
  if (request.batch) {
    std::string batch = "--elastic-batch=" + std::to_string(request.batch->tuned) + ":" +
                        std::to_string(request.batch->max);
    if (request.batch->max_per_node > 0) batch += ":" + std::to_string(request.batch->max_per_node);
    argv.push_back(batch);
  }
  if (request.noise_scale) {
    argv.push_back("--elastic-noise-scale=" + number_text(*request.noise_scale));
  }
  if (request.mix_types) argv.push_back("--elastic-mix-types");
  if (request.parsable) argv.push_back("--parsable");
  if (std::none_of(request.sbatch_args.begin(), request.sbatch_args.end(), is_name_option)) {
    argv.push_back("--job-name=" + job_name(request.command));
  }
  argv.insert(argv.end(), request.sbatch_args.begin(), request.sbatch_args.end());
  std::string wrap = "exec " + shell_quote(site.launcher);
  if (!site.controller.empty()) wrap += " --controller " + shell_quote(site.controller);
  if (request.max_restarts) wrap += " --max-restarts " + std::to_string(*request.max_restarts);
  if (request.torchrun) {
    wrap += " --torchrun";
    if (!request.python.empty()) wrap += " --python " + shell_quote(request.python);
  }
  wrap += " --";
  for (const std::string& word : request.command) wrap += " " + shell_quote(word);
  argv.push_back("--wrap=" + wrap);
  return argv;
}

const char* const kPythonQuestion =
    "import sys, importlib.util as u\n"
    "print(sys.executable)\n"
    "print(' '.join(m for m in ('torch', 'gaptrain') if u.find_spec(m) is None))\n";

std::optional<PythonAnswer> python_answer(const std::string& output) {
  std::istringstream lines(output);
  PythonAnswer answer;
  std::getline(lines, answer.executable);
  if (answer.executable.empty() || answer.executable.front() != '/') return std::nullopt;
  std::string missing;
  std::getline(lines, missing);
  std::istringstream words(missing);
  for (std::string module; words >> module;) answer.missing.push_back(module);
  return answer;
}

}  // namespace gaptrain::cli
