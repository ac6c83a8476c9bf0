#include "core/config.hpp"

#include <arpa/inet.h>
#include <json/json.h>
#include <netinet/in.h>

#include <array>
#include <charconv>
#include <cmath>
#include <iomanip>
#include <memory>
#include <sstream>
#include <system_error>

#include "gaptrain/input_error.hpp"
#include "gaptrain/json_text.hpp"

namespace gaptrain::daemon {

namespace {

constexpr std::array kKnownKeys{
    "listen",          "munge_socket",   "poll_interval_s",  "elastic_partition",
    "log_level",       "horizon_s",      "lease_s",          "drain_grace_s",
    "reclaim_grace_s", "resize",         "watch_interval_s", "idle_reserve_nodes",
    "state_file",      "metrics_listen", "max_connections",  "max_connections_per_peer"};

// Bounds on the poll interval: below 0.1 s the daemon would load slurmctld for nothing (plugin
// events trigger immediate polls anyway); above an hour holes would be seen far too late.
constexpr double kMinPollS = 0.1;
constexpr double kMaxPollS = 3600.0;
// Each connection is a file descriptor; more than this many at once is a misconfiguration.
constexpr int kMaxConnections = 65536;

std::string known_keys() {
  std::string list;
  for (const char* key : kKnownKeys) {
    if (!list.empty()) list += ", ";
    list += key;
  }
  return list;
}

std::string require_string(const Json::Value& root, const char* key, const char* hint) {
  const Json::Value& value = root[key];
  if (!value.isString()) throw InputError(key, std::string("must be a string: ") + hint);
  return value.asString();
}

// root[key] as seconds in [min, max]; `fallback` is the default the hint names.
double require_seconds(const Json::Value& root, const char* key, double min, double max,
                       double fallback) {
  std::ostringstream hint_text;
  hint_text << "give seconds between " << min << " and " << max
            << ", or remove the key for the default " << std::fixed << std::setprecision(1)
            << fallback;
  const std::string hint = hint_text.str();
  const Json::Value& value = root[key];
  if (!value.isNumeric()) throw InputError(key, "must be a number: " + hint);
  const double seconds = value.asDouble();
  if (!std::isfinite(seconds) || seconds < min || seconds > max) {
    std::ostringstream got;
    got << seconds;
    throw InputError(key, "out of range (" + got.str() + "): " + hint);
  }
  return seconds;
}

// root[key] as a whole number in [0, max]; `fallback` is the default the hint names.
int require_count(const Json::Value& root, const char* key, int max, int fallback) {
  const std::string hint = "give a whole number from 0 to " + std::to_string(max) +
                           ", or remove the key for the default " + std::to_string(fallback);
  const Json::Value& value = root[key];
  if (!value.isNumeric()) throw InputError(key, "must be a number: " + hint);
  const double count = value.asDouble();
  if (!std::isfinite(count) || count != std::floor(count) || count < 0 || count > max) {
    std::ostringstream got;
    got << count;
    throw InputError(key, "out of range (" + got.str() + "): " + hint);
  }
  return static_cast<int>(count);
}

bool is_numeric_host(const std::string& host) {
  // inet_pton reads up to the first NUL: "127.0.0.1\0junk" is not an address.
  if (host.find('\0') != std::string::npos) return false;
  in_addr v4{};
  in6_addr v6{};
  return inet_pton(AF_INET, host.c_str(), &v4) == 1 || inet_pton(AF_INET6, host.c_str(), &v6) == 1;
}

}  // namespace

ListenAddress parse_listen(std::string_view text) {
  constexpr const char* kHint =
      "give \"HOST:PORT\" with a numeric address, e.g. \"127.0.0.1:6820\" or \"[::1]:6820\"";
  std::string_view host;
  std::string_view port;
  if (text.starts_with('[')) {
    const auto close = text.find("]:");
    if (close == std::string_view::npos) throw InputError("listen", kHint);
    host = text.substr(1, close - 1);
    port = text.substr(close + 2);
  } else {
    const auto colon = text.rfind(':');
    if (colon == std::string_view::npos) throw InputError("listen", kHint);
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
  }
  ListenAddress address;
  address.host = std::string(host);
  if (address.host.empty() || !is_numeric_host(address.host)) {
    throw InputError("listen", "\"" + std::string(text) + "\" has no numeric address: " + kHint);
  }
  unsigned value = 0;
  const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (ec != std::errc() || end != port.data() + port.size() || value == 0 || value > 65535) {
    throw InputError("listen", "\"" + std::string(text) + "\" has no port in 1..65535: " + kHint);
  }
  address.port = static_cast<std::uint16_t>(value);
  return address;
}

std::string to_string(const ListenAddress& address) {
  const bool v6 = address.host.find(':') != std::string::npos;
  return (v6 ? "[" + address.host + "]" : address.host) + ":" + std::to_string(address.port);
}

std::string_view to_string(LogLevel level) {
  switch (level) {
    case LogLevel::debug: return "debug";
    case LogLevel::info: return "info";
    case LogLevel::warning: return "warning";
  }
  return "info";
}

DaemonConfig parse_config(std::string_view json_text) {
  Json::Value root;
  try {
    root = parse_strict_json(json_text);
  } catch (const InputError& e) {
    throw InputError("", std::string(e.what()) + ": fix the syntax");
  }
  if (!root.isObject()) throw InputError("", "must be a JSON object of settings, e.g. {}");
  for (const std::string& key : root.getMemberNames()) {
    bool known = false;
    for (const char* k : kKnownKeys) known = known || key == k;
    if (!known) {
      throw InputError(
          key, "unknown key: remove it or fix its spelling (known keys: " + known_keys() + ")");
    }
  }

  DaemonConfig config;
  if (root.isMember("listen")) {
    config.listen = parse_listen(require_string(root, "listen", "\"HOST:PORT\""));
  }
  if (root.isMember("munge_socket")) {
    config.munge_socket =
        require_string(root, "munge_socket", "a path to munged's socket, or \"\" for the default");
  }
  const auto seconds = [&](const char* key, double min, double max, double& field) {
    if (root.isMember(key)) field = require_seconds(root, key, min, max, field);
  };
  seconds("poll_interval_s", kMinPollS, kMaxPollS, config.poll_interval_s);
  seconds("watch_interval_s", kMinPollS, kMaxPollS, config.watch_interval_s);
  // A lease is a Slurm time limit: whole minutes, at least one.
  seconds("lease_s", 60.0, 7.0 * 86400.0, config.lease_s);
  seconds("horizon_s", 1.0, 86400.0, config.horizon_s);
  seconds("drain_grace_s", 0.0, 3600.0, config.drain_grace_s);
  seconds("reclaim_grace_s", 0.0, 60.0, config.reclaim_grace_s);
  if (root.isMember("metrics_listen")) {
    const std::string text = require_string(
        root, "metrics_listen", "\"HOST:PORT\" to serve Prometheus metrics on, or \"\" for none");
    if (text.empty()) {
      config.metrics_listen.reset();
    } else {
      try {
        config.metrics_listen = parse_listen(text);
      } catch (const InputError& e) {
        // parse_listen names "listen"; the same problem, under this key.
        const std::string problem = e.what();
        throw InputError("metrics_listen", problem.substr(problem.find(": ") + 2));
      }
    }
  }
  if (root.isMember("state_file")) {
    config.state_file = require_string(root, "state_file",
                                       "an absolute path for gaptraind's state, or \"\" for none");
    if (!config.state_file.empty() && config.state_file.front() != '/') {
      throw InputError("state_file", "must be an absolute path (or \"\" for none), got \"" +
                                         config.state_file + "\"");
    }
  }
  if (root.isMember("idle_reserve_nodes")) {
    config.idle_reserve_nodes =
        require_count(root, "idle_reserve_nodes", 100000, config.idle_reserve_nodes);
  }
  for (const auto& [key, field] :
       {std::pair{"max_connections", &config.max_connections},
        std::pair{"max_connections_per_peer", &config.max_connections_per_peer}}) {
    if (root.isMember(key)) *field = require_count(root, key, kMaxConnections, *field);
    if (*field < 1) throw InputError(key, "must be at least 1 (a daemon that takes no request)");
  }
  if (config.max_connections_per_peer > config.max_connections) {
    throw InputError("max_connections_per_peer",
                     "is " + std::to_string(config.max_connections_per_peer) +
                         ", more than max_connections (" + std::to_string(config.max_connections) +
                         "): lower it, or one host could take every connection");
  }
  if (root.isMember("resize")) {
    if (!root["resize"].isBool()) {
      throw InputError("resize", "must be true (resize elastic jobs) or false (only watch)");
    }
    config.resize = root["resize"].asBool();
  }
  if (root.isMember("elastic_partition")) {
    config.elastic_partition = require_string(
        root, "elastic_partition", "the name of the Slurm partition elastic jobs run in");
    if (config.elastic_partition.empty()) {
      throw InputError("elastic_partition",
                       "must not be empty: name the Slurm partition elastic jobs run in");
    }
  }
  if (root.isMember("log_level")) {
    const std::string level =
        require_string(root, "log_level", "one of \"debug\", \"info\", \"warning\"");
    if (level == "debug") {
      config.log_level = LogLevel::debug;
    } else if (level == "info") {
      config.log_level = LogLevel::info;
    } else if (level == "warning") {
      config.log_level = LogLevel::warning;
    } else {
      throw InputError("log_level",
                       "\"" + level + "\" is not a level: use \"debug\", \"info\" or \"warning\"");
    }
  }
  return config;
}

}  // namespace gaptrain::daemon
