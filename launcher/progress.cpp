#include "progress.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <sstream>
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

// A sample count as the job's output shows it: 4096, 2e+12.
std::string number_text(double value) {
  std::ostringstream text;
  text.precision(6);
  text << value;
  return text.str();
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
        if (!std::isfinite(progress.samples_done) || progress.samples_done < 0.0 ||
            progress.samples_done > bounds::kMaxSamplesDone) {
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
  // Never through a link, without blocking, and only the user's own regular file.
  const int fd = open_own_file(path);
  if (fd < 0) return std::nullopt;
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } const closer{fd};
  struct stat status {};
  if (::fstat(fd, &status) != 0 || status.st_size <= 0) return std::nullopt;
  const off_t from = status.st_size > kTailBytes ? status.st_size - kTailBytes : 0;
  std::string tail(static_cast<std::size_t>(status.st_size - from), '\0');
  const ssize_t got = ::pread(fd, tail.data(), tail.size(), from);
  if (got <= 0) return std::nullopt;
  tail.resize(static_cast<std::size_t>(got));
  return last_progress(tail);
}

ProgressFeed::ProgressFeed(std::string path, int max_nodes)
    : path_(std::move(path)), max_nodes_(std::max(1, max_nodes)) {}

std::optional<ProgressFeed::Refusal> ProgressFeed::refusal(const Progress& progress,
                                                           double now_s) const {
  if (!taken_) return std::nullopt;
  const double before = taken_->samples_done;
  if (progress.samples_done < before) {
    return Refusal{"back", "samples_done went back from " + number_text(before) + " to " +
                               number_text(progress.samples_done)};
  }
  const double seconds = std::max(0.0, now_s - taken_at_s_) + 1.0;
  const double most = static_cast<double>(max_nodes_) * bounds::kMaxSamplesPerNodePerS * seconds;
  if (progress.samples_done - before > most) {
    return Refusal{"fast", "samples_done jumped from " + number_text(before) + " to " +
                               number_text(progress.samples_done) + ", faster than " +
                               std::to_string(max_nodes_) + " node(s) can train"};
  }
  return std::nullopt;
}

ProgressFeed::Reading ProgressFeed::refused(const Refusal& refusal) {
  Reading reading;
  if (refusing_ != refusal.kind) {
    reading.say = "progress not taken: " + refusal.why +
                  " (said once; the job's progress is taken again when it is usable)";
  }
  refusing_ = refusal.kind;
  return reading;
}

ProgressFeed::Reading ProgressFeed::read(double now_s) {
  if (path_.empty()) return {};
  std::optional<Progress> progress;
  try {
    progress = read_progress(path_);
  } catch (const UnsafePath& e) {
    return refused({"file", e.what()});
  }
  if (!progress) return {};
  if (const std::optional<Refusal> refused_now = refusal(*progress, now_s)) {
    return refused(*refused_now);
  }
  // A time before the last one taken (a clock set back) is no time to measure by.
  if (progress->time && taken_ && taken_->time && *progress->time < *taken_->time) {
    progress->time.reset();
  }
  Reading reading;
  if (refusing_) reading.say = "progress taken again from " + path_;
  refusing_.reset();
  taken_ = progress;
  taken_at_s_ = now_s;
  reading.progress = progress;
  return reading;
}

}  // namespace gaptrain::launch
