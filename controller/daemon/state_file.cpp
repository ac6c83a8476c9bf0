#include "state_file.hpp"

#include <fcntl.h>
#include <json/json.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <string_view>
#include <system_error>
#include <variant>

#include "gaptrain/errno_error.hpp"
#include "gaptrain/input_error.hpp"
#include "gaptrain/json_text.hpp"
#include "gaptrain/parse_number.hpp"
#include "gaptrain/scaling_curve.hpp"
#include "gaptrain/scaling_curve_json.hpp"

namespace gaptrain::daemon {

namespace {

constexpr int kStateVersion = 1;
// A learned curve's node counts are at most a job's max_nodes; this only bounds nonsense.
constexpr std::uint64_t kMaxCurveNodes = 1000000;

using protocol::Request;

double seconds(const Json::Value& value, const std::string& field) {
  const double s = json_number(value, field);
  if (!std::isfinite(s) || s < 0.0) throw_json_type_error(field, "a finite number >= 0", value);
  return s;
}

// The learned curve restored as a job's model, under ScalingCurve's rule (its rates are > 0:
// the speedup and fair objectives divide by the 1-node rate, job_value.cpp). A corrupt one
// would otherwise stop every plan.
ScalingCurve learned_curve(const Json::Value& curve, const std::string& field) {
  if (json_array(curve, field).empty())
    throw InputError(field, "expected at least one [nodes, samples/s] point");
  std::vector<ScalingCurve::Point> points;
  for (Json::ArrayIndex i = 0; i < curve.size(); ++i) {
    const std::string at = field + "[" + std::to_string(i) + "]";
    const Json::Value& point = curve[i];
    if (!point.isArray() || point.size() != 2) {
      throw_json_type_error(at, "[nodes, samples/s]", point);
    }
    const ScalingCurve::Point next{
        static_cast<int>(json_whole_number(point[0], at + "[0]", kMaxCurveNodes)),
        json_number(point[1], at + "[1]")};
    if (auto problem =
            ScalingCurve::point_problem(points.empty() ? 0 : points.back().nodes, next)) {
      throw InputError(at, *problem);
    }
    points.push_back(next);
  }
  return ScalingCurve(std::move(points));
}

std::pair<double, double> learned_costs(const Json::Value& costs, const std::string& field) {
  json_object(costs, field);
  static constexpr std::array<std::string_view, 2> kCostKeys{"up_s", "down_s"};
  reject_unknown_json_keys(costs, kCostKeys, field + ".");
  return {seconds(json_required(costs, "up_s", field + "."), field + ".up_s"),
          seconds(json_required(costs, "down_s", field + "."), field + ".down_s")};
}

// One job, or an InputError naming what makes it unusable. A bad learned part is dropped
// alone (into `dropped`): the job is managed again and learns it anew.
core::SavedJob decode_job(const Json::Value& entry, const std::string& field,
                          std::vector<DroppedEntry>& dropped) {
  json_object(entry, field);
  static constexpr std::array<std::string_view, 6> kKeys{"registration",  "uid",
                                                         "registered_at", "learned_curve",
                                                         "learned_costs", "learned_noise_scale"};
  reject_unknown_json_keys(entry, kKeys, field + ".");
  core::SavedJob job;
  const Json::Value& saved_registration = json_required(entry, "registration", field + ".");
  Request request;
  try {
    request = protocol::decode(one_line_json(saved_registration));
  } catch (const InputError& e) {
    throw e.under(field + ".registration");
  }
  const auto* registration = std::get_if<protocol::JobRegistration>(&request);
  if (registration == nullptr) {
    throw InputError(field + ".registration", "not a \"register\" request");
  }
  job.registration = *registration;
  job.uid = static_cast<uid_t>(
      json_whole_number(json_required(entry, "uid", field + "."), field + ".uid", 0xfffffffeU));
  job.registered_at = static_cast<std::int64_t>(json_whole_number(
      json_required(entry, "registered_at", field + "."), field + ".registered_at", INT64_MAX));
  if (const Json::Value* curve = json_member(entry, "learned_curve")) {
    try {
      job.learned_curve = learned_curve(*curve, field + ".learned_curve");
    } catch (const InputError& e) {
      dropped.push_back({field + ".learned_curve", e.what()});
    }
  }
  if (const Json::Value* costs = json_member(entry, "learned_costs")) {
    try {
      job.learned_costs = learned_costs(*costs, field + ".learned_costs");
    } catch (const InputError& e) {
      dropped.push_back({field + ".learned_costs", e.what()});
    }
  }
  // Absent from files written before goodput.
  if (const Json::Value* phi = json_member(entry, "learned_noise_scale")) {
    const std::string at = field + ".learned_noise_scale";
    if (phi->isNumeric() && !protocol::noise_scale_problem(phi->asDouble())) {
      job.learned_noise_scale = phi->asDouble();
    } else {
      dropped.push_back(
          {at, at + ": expected a noise scale from 0 to 1e15, got " + describe_json(*phi)});
    }
  }
  return job;
}

}  // namespace

std::string encode_state(const core::SavedState& state) {
  Json::Value root(Json::objectValue);
  root["version"] = kStateVersion;
  Json::Value jobs(Json::arrayValue);
  for (const core::SavedJob& job : state.jobs) {
    Json::Value entry(Json::objectValue);
    entry["registration"] =
        parse_strict_json(protocol::encode(protocol::Request{job.registration}));
    entry["uid"] = Json::UInt{job.uid};
    entry["registered_at"] = Json::Int64{job.registered_at};
    if (job.learned_curve) entry["learned_curve"] = curve_to_json(*job.learned_curve);
    if (job.learned_costs) {
      entry["learned_costs"]["up_s"] = job.learned_costs->first;
      entry["learned_costs"]["down_s"] = job.learned_costs->second;
    }
    if (job.learned_noise_scale) entry["learned_noise_scale"] = *job.learned_noise_scale;
    jobs.append(entry);
  }
  root["jobs"] = jobs;
  Json::Value limits(Json::objectValue);
  for (const auto& [job_id, minutes] : state.user_limits) {
    limits[std::to_string(job_id)] = Json::UInt{minutes};
  }
  root["user_limits"] = limits;
  root["operation"] = std::string(to_string(state.operation));
  return one_line_json(root) + "\n";
}

DecodedState decode_state(std::string_view json) {
  if (json.size() > kMaxStateFileBytes) {
    throw InputError("", "larger than " + std::to_string(kMaxStateFileBytes) +
                             " bytes: not a state gaptraind wrote");
  }
  const Json::Value root = parse_strict_json(json);
  json_object(root, "");
  static constexpr std::array<std::string_view, 4> kKeys{"version", "jobs", "user_limits",
                                                         "operation"};
  reject_unknown_json_keys(root, kKeys);
  const Json::Value& version = json_required(root, "version");
  if (!version.isIntegral() || !version.isInt64() || version.asInt64() != kStateVersion) {
    throw InputError("version", "expected " + std::to_string(kStateVersion) + ", got " +
                                    describe_json(version) +
                                    ": written by another gaptraind version; remove the file "
                                    "to start without it");
  }
  const Json::Value& jobs = json_array(json_required(root, "jobs"), "jobs");
  const Json::Value& limits = json_object(json_required(root, "user_limits"), "user_limits");

  DecodedState decoded;
  core::SavedState& state = decoded.state;
  std::set<std::uint32_t> job_ids;
  for (Json::ArrayIndex i = 0; i < jobs.size(); ++i) {
    const std::string field = "jobs[" + std::to_string(i) + "]";
    try {
      core::SavedJob job = decode_job(jobs[i], field, decoded.dropped);
      if (!job_ids.insert(job.registration.job_id).second) {
        throw InputError(field, "job " + std::to_string(job.registration.job_id) +
                                    " is saved twice; the first entry is kept");
      }
      state.jobs.push_back(std::move(job));
    } catch (const InputError& e) {
      decoded.dropped.push_back({field, e.what()});
    }
  }
  for (const std::string& key : limits.getMemberNames()) {
    const std::string field = "user_limits." + json_key_in_path(key);
    try {
      const std::uint32_t job_id = parse_number<std::uint32_t>(key).value_or(0);
      if (job_id == 0) throw InputError(field, "a job id is a whole number > 0");
      state.user_limits[job_id] =
          static_cast<std::uint32_t>(json_whole_number(limits[key], field, 0xffffffffU));
    } catch (const InputError& e) {
      decoded.dropped.push_back({field, e.what()});
    }
  }
  // Absent from files written before pause and drain were kept: running.
  if (const Json::Value* operation = json_member(root, "operation")) {
    const std::optional<core::Operation> parsed =
        operation->isString() ? core::parse_operation(operation->asString()) : std::nullopt;
    if (parsed) {
      state.operation = *parsed;
    } else {
      decoded.dropped.push_back(
          {"operation", "operation: expected \"running\", \"paused\" or \"draining\", got " +
                            describe_json(*operation)});
    }
  }
  return decoded;
}

void write_file_atomically(const std::string& path, const std::string& text) {
  const std::filesystem::path target(path);
  // A fresh name each time, created exclusively (mkostemp opens with O_CREAT | O_EXCL, which
  // never follows a symlink): nobody can plant a link or a file for the write to go through,
  // and a temporary file left by a crash is never reused.
  std::string temporary = path + ".tmp.XXXXXX";
  const int fd = ::mkostemp(temporary.data(), O_CLOEXEC);
  if (fd < 0) throw_errno(errno, "cannot create a temporary file for " + path);
  const auto fail = [&](const std::string& what, const std::string& name) {
    const int saved = errno;
    ::close(fd);
    ::unlink(temporary.c_str());
    errno = saved;
    throw_errno(errno, what + " " + name);
  };
  if (::fchmod(fd, 0600) != 0) fail("cannot chmod", temporary);
  std::string_view left = text;
  while (!left.empty()) {
    const ssize_t written = ::write(fd, left.data(), left.size());
    if (written < 0 && errno == EINTR) continue;
    if (written < 0) fail("cannot write", temporary);
    left.remove_prefix(static_cast<std::size_t>(written));
  }
  // On disk before the rename makes it the state: a crash never leaves an empty file there.
  if (::fsync(fd) != 0) fail("cannot fsync", temporary);
  if (::close(fd) != 0) {
    const int saved = errno;
    ::unlink(temporary.c_str());
    errno = saved;
    throw_errno(errno, "cannot close " + temporary);
  }
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    const int saved = errno;
    ::unlink(temporary.c_str());
    errno = saved;
    throw_errno(errno, "cannot rename onto " + path);
  }
  // The rename is an entry in the directory: without this a power loss may bring back the old
  // state (or none) although the write returned.
  const std::string directory =
      target.has_parent_path() ? target.parent_path().string() : std::string(".");
  const int dir = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) throw_errno(errno, "cannot open the directory of " + path);
  const int synced = ::fsync(dir);
  const int saved = errno;
  ::close(dir);
  errno = saved;
  if (synced != 0) throw_errno(errno, "cannot fsync the directory of " + path);
}

std::optional<std::string> read_file_if_exists(const std::string& path, std::size_t max_bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) return std::nullopt;
  if (fd < 0) throw_errno(errno, "cannot open " + path);
  std::string text;
  std::array<char, 65536> buffer{};
  for (;;) {
    const std::size_t wanted = std::min(buffer.size(), max_bytes + 1 - text.size());
    const ssize_t got = ::read(fd, buffer.data(), wanted);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      const int saved = errno;
      ::close(fd);
      errno = saved;
      throw_errno(errno, "cannot read " + path);
    }
    if (got == 0) break;
    text.append(buffer.data(), static_cast<std::size_t>(got));
    if (text.size() > max_bytes) break;
  }
  ::close(fd);
  return text;
}

}  // namespace gaptrain::daemon
