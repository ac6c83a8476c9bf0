#include "progress.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <memory>
#include <string>

#include "gaptrain/bounds.hpp"
#include "gaptrain/input_error.hpp"
#include "gaptrain/json_text.hpp"

namespace gaptrain::launch {

namespace {

// A gradient statistic as gaptraind takes it: a finite number >= 0.
std::optional<double> statistic(const Json::Value& value) {
  if (!value.isNumeric() || !std::isfinite(value.asDouble()) || value.asDouble() < 0.0) {
    return std::nullopt;
  }
  return value.asDouble();
}

// Enough for any sane progress line, and bounds the work per poll however large the file grows.
constexpr off_t kTailBytes = 64 * 1024;

}  // namespace

std::optional<Progress> last_progress(std::string_view text) {
  const std::size_t end = text.rfind('\n');
  if (end == std::string_view::npos) return std::nullopt;
  text = text.substr(0, end);
  // The last non-blank line before the final '\n'.
  while (!text.empty()) {
    const std::size_t start = text.rfind('\n');
    const std::string_view line = start == std::string_view::npos ? text : text.substr(start + 1);
    if (line.find_first_not_of(" \t\r") != std::string_view::npos) {
      try {
        const Json::Value document = parse_strict_json(line);
        if (!document.isObject()) return std::nullopt;
        const Json::Value& done = document["samples_done"];
        if (!done.isNumeric()) return std::nullopt;
        Progress progress;
        progress.samples_done = done.asDouble();
        if (!std::isfinite(progress.samples_done) || progress.samples_done < 0.0) {
          return std::nullopt;
        }
        // Checked as gaptraind will: a value it would refuse is left out, not the report.
        const Json::Value& time = document["time"];
        if (time.isNumeric() && std::isfinite(time.asDouble()) && time.asDouble() > 0.0 &&
            time.asDouble() < bounds::kMaxTraceTimeS) {
          progress.time = time.asDouble();
        }
        const Json::Value& world = document["world_size"];
        if (world.isInt() && world.asInt() >= 1 && world.asInt() <= bounds::kMaxNodes) {
          progress.world_size = world.asInt();
        }
        progress.grad_sqr = statistic(document["grad_sqr"]);
        progress.grad_var = statistic(document["grad_var"]);
        progress.leaves_on_job_file =
            document["leaves_on_job_file"].isBool() && document["leaves_on_job_file"].asBool();
        return progress;
      } catch (const InputError&) {
        return std::nullopt;
      }
    }
    if (start == std::string_view::npos) break;
    text = text.substr(0, start);
  }
  return std::nullopt;
}

std::optional<Progress> read_progress(const std::string& path) {
  // Without blocking, and regular files only: a named pipe at the path would stall every poll.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return std::nullopt;
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } const closer{fd};
  struct stat status {};
  if (::fstat(fd, &status) != 0 || !S_ISREG(status.st_mode) || status.st_size <= 0) {
    return std::nullopt;
  }
  const off_t from = status.st_size > kTailBytes ? status.st_size - kTailBytes : 0;
  std::string tail(static_cast<std::size_t>(status.st_size - from), '\0');
  const ssize_t got = ::pread(fd, tail.data(), tail.size(), from);
  if (got <= 0) return std::nullopt;
  tail.resize(static_cast<std::size_t>(got));
  return last_progress(tail);
}

}  // namespace gaptrain::launch
