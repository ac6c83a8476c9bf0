#include "state_file.hpp"

#include <fcntl.h>
#include <json/json.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <string_view>
#include <system_error>
#include <variant>

#include "gaptrain/input_error.hpp"
#include "gaptrain/json_text.hpp"

namespace gaptrain::daemon {

namespace {

constexpr int kStateVersion = 1;

std::string one_line(const Json::Value& value) {
  Json::StreamWriterBuilder builder;
  builder["indentation"] = "";
  builder["precision"] = 17;  // rates and costs survive a round trip exactly
  return Json::writeString(builder, value);
}

// `field` by value: a reference parameter bound to a temporary ("" at the top level) makes GCC 14
// suspect the returned reference (-Wdangling-reference), although it refers into `object`.
const Json::Value& member(const Json::Value& object, const char* key, std::string_view field) {
  if (!object.isMember(key)) throw InputError(std::string(field) + key, "missing");
  return object[key];
}

std::uint64_t whole_number(const Json::Value& value, const std::string& field, std::uint64_t max) {
  if (!value.isIntegral() || value.asLargestInt() < 0 || value.asLargestUInt() > max) {
    throw_json_type_error(field, "a whole number from 0 to " + std::to_string(max), value);
  }
  return value.asLargestUInt();
}

double seconds(const Json::Value& value, const std::string& field) {
  if (!value.isNumeric() || value.asDouble() < 0.0) {
    throw_json_type_error(field, "seconds >= 0", value);
  }
  return value.asDouble();
}

SavedJob decode_job(const Json::Value& entry, const std::string& field) {
  if (!entry.isObject()) throw_json_type_error(field, "an object", entry);
  static constexpr std::array<std::string_view, 5> kKeys{"registration", "uid", "registered_at",
                                                         "learned_curve", "learned_costs"};
  reject_unknown_json_keys(entry, kKeys, field + ".");
  SavedJob job;
  const protocol::Request request =
      protocol::decode(one_line(member(entry, "registration", field + ".")));
  const auto* registration = std::get_if<protocol::JobRegistration>(&request);
  if (registration == nullptr) {
    throw InputError(field + ".registration", "not a \"register\" request");
  }
  job.registration = *registration;
  job.uid = static_cast<uid_t>(
      whole_number(member(entry, "uid", field + "."), field + ".uid", 0xfffffffeU));
  job.registered_at = static_cast<std::int64_t>(whole_number(
      member(entry, "registered_at", field + "."), field + ".registered_at", INT64_MAX));
  if (entry.isMember("learned_curve")) {
    const Json::Value& curve = entry["learned_curve"];
    if (!curve.isArray()) throw_json_type_error(field + ".learned_curve", "an array", curve);
    std::vector<std::pair<int, double>> points;
    for (Json::ArrayIndex i = 0; i < curve.size(); ++i) {
      const std::string at = field + ".learned_curve[" + std::to_string(i) + "]";
      const Json::Value& point = curve[i];
      if (!point.isArray() || point.size() != 2) {
        throw_json_type_error(at, "[nodes, samples/s]", point);
      }
      points.emplace_back(static_cast<int>(whole_number(point[0], at + "[0]", 1000000)),
                          seconds(point[1], at + "[1]"));
    }
    job.learned_curve = std::move(points);
  }
  if (entry.isMember("learned_costs")) {
    const Json::Value& costs = entry["learned_costs"];
    const std::string at = field + ".learned_costs";
    if (!costs.isObject()) throw_json_type_error(at, "an object", costs);
    static constexpr std::array<std::string_view, 2> kCostKeys{"up_s", "down_s"};
    reject_unknown_json_keys(costs, kCostKeys, at + ".");
    job.learned_costs = std::pair{seconds(member(costs, "up_s", at + "."), at + ".up_s"),
                                  seconds(member(costs, "down_s", at + "."), at + ".down_s")};
  }
  return job;
}

[[noreturn]] void throw_errno(const std::string& what, const std::string& path) {
  throw std::system_error(errno, std::generic_category(), what + " " + path);
}

}  // namespace

SavedJob saved_job(const ElasticJob& job) {
  SavedJob saved;
  saved.uid = job.uid;
  saved.registered_at = job.registered_at;
  protocol::JobRegistration& r = saved.registration;
  r.job_id = job.job_id;
  r.user = job.user;
  r.batch_host = job.batch_host;
  r.min_nodes = job.min_nodes;
  r.max_nodes = job.max_nodes;
  if (job.curve_source == Source::given) r.curve = job.curve;
  if (job.curve_source == Source::learned) saved.learned_curve = job.curve;
  if (job.costs_source == Source::given) {
    r.up_cost_s = job.up_cost_s;
    r.down_cost_s = job.down_cost_s;
  }
  if (job.costs_source == Source::learned) saved.learned_costs = {job.up_cost_s, job.down_cost_s};
  return saved;
}

std::string encode_state(const DaemonState& state) {
  Json::Value root(Json::objectValue);
  root["version"] = kStateVersion;
  Json::Value jobs(Json::arrayValue);
  for (const SavedJob& job : state.jobs) {
    Json::Value entry(Json::objectValue);
    entry["registration"] =
        parse_strict_json(protocol::encode(protocol::Request{job.registration}));
    entry["uid"] = Json::UInt{job.uid};
    entry["registered_at"] = Json::Int64{job.registered_at};
    if (job.learned_curve) {
      Json::Value curve(Json::arrayValue);
      for (const auto& [nodes, rate] : *job.learned_curve) {
        Json::Value point(Json::arrayValue);
        point.append(nodes);
        point.append(rate);
        curve.append(point);
      }
      entry["learned_curve"] = curve;
    }
    if (job.learned_costs) {
      entry["learned_costs"]["up_s"] = job.learned_costs->first;
      entry["learned_costs"]["down_s"] = job.learned_costs->second;
    }
    jobs.append(entry);
  }
  root["jobs"] = jobs;
  Json::Value limits(Json::objectValue);
  for (const auto& [job_id, minutes] : state.user_limits) {
    limits[std::to_string(job_id)] = Json::UInt{minutes};
  }
  root["user_limits"] = limits;
  return one_line(root) + "\n";
}

DaemonState decode_state(std::string_view json) {
  const Json::Value root = parse_strict_json(json);
  if (!root.isObject()) throw_json_type_error("", "an object", root);
  static constexpr std::array<std::string_view, 3> kKeys{"version", "jobs", "user_limits"};
  reject_unknown_json_keys(root, kKeys);
  const Json::Value& version = member(root, "version", "");
  if (!version.isIntegral() || version.asLargestInt() != kStateVersion) {
    throw InputError("version", "expected " + std::to_string(kStateVersion) + ", got " +
                                    describe_json(version) +
                                    ": written by another gaptraind version; remove the file "
                                    "to start without it");
  }
  DaemonState state;
  const Json::Value& jobs = member(root, "jobs", "");
  if (!jobs.isArray()) throw_json_type_error("jobs", "an array", jobs);
  for (Json::ArrayIndex i = 0; i < jobs.size(); ++i) {
    state.jobs.push_back(decode_job(jobs[i], "jobs[" + std::to_string(i) + "]"));
  }
  const Json::Value& limits = member(root, "user_limits", "");
  if (!limits.isObject()) throw_json_type_error("user_limits", "an object", limits);
  for (const std::string& key : limits.getMemberNames()) {
    const std::string field = "user_limits." + json_key_in_path(key);
    std::uint32_t job_id = 0;
    const auto [end, error] = std::from_chars(key.data(), key.data() + key.size(), job_id);
    if (error != std::errc{} || end != key.data() + key.size() || job_id == 0) {
      throw InputError(field, "a job id is a whole number > 0");
    }
    state.user_limits[job_id] =
        static_cast<std::uint32_t>(whole_number(limits[key], field, 0xffffffffU));
  }
  return state;
}

void write_file_atomically(const std::string& path, const std::string& text) {
  const std::string temporary = path + ".tmp";
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) throw_errno("cannot create", temporary);
  std::string_view left = text;
  while (!left.empty()) {
    const ssize_t written = ::write(fd, left.data(), left.size());
    if (written < 0 && errno == EINTR) continue;
    if (written < 0) {
      const int saved = errno;
      ::close(fd);
      errno = saved;
      throw_errno("cannot write", temporary);
    }
    left.remove_prefix(static_cast<std::size_t>(written));
  }
  // On disk before the rename makes it the state: a crash never leaves an empty file there.
  if (::fsync(fd) != 0) {
    const int saved = errno;
    ::close(fd);
    errno = saved;
    throw_errno("cannot fsync", temporary);
  }
  if (::close(fd) != 0) throw_errno("cannot close", temporary);
  if (::rename(temporary.c_str(), path.c_str()) != 0) throw_errno("cannot rename onto", path);
}

std::optional<std::string> read_file_if_exists(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) return std::nullopt;
  if (fd < 0) throw_errno("cannot open", path);
  std::string text;
  std::array<char, 65536> buffer{};
  for (;;) {
    const ssize_t got = ::read(fd, buffer.data(), buffer.size());
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      const int saved = errno;
      ::close(fd);
      errno = saved;
      throw_errno("cannot read", path);
    }
    if (got == 0) break;
    text.append(buffer.data(), static_cast<std::size_t>(got));
  }
  ::close(fd);
  return text;
}

}  // namespace gaptrain::daemon
