// The messages the SPANK plugin (and `gaptrain status`) send to gaptraind: a small versioned
// JSON protocol, one request per TCP connection, sealed in a munge credential so the daemon
// knows the sender's uid (docs/protocol.md). Pure: encoding and decoding only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace gaptrain::protocol {

inline constexpr int kVersion = 1;

// From a job's epilog: the job released `node` (a hole may open).
struct NodeFreed {
  std::uint32_t job_id = 0;
  std::string node;
};

// From a job's prolog: `node` now belongs to job `job_id` (a reclaim when it was a hole).
struct NodeTaken {
  std::uint32_t job_id = 0;
  std::string node;
  bool elastic = false;  // the job opted in with --elastic
};

// From an elastic job's batch step: the job asks to be managed.
struct JobRegistration {
  std::uint32_t job_id = 0;
  std::string user;
  std::string batch_host;
  int min_nodes = 1;
  int max_nodes = 1;
  std::vector<std::pair<int, double>> curve;  // (nodes, samples/s); empty: learn it online
  std::optional<double> up_cost_s;            // empty: learn it online
  std::optional<double> down_cost_s;
};

// From `gaptrain status`: the daemon's view of holes and elastic jobs.
struct StatusRequest {};

using Request = std::variant<NodeFreed, NodeTaken, JobRegistration, StatusRequest>;

// One line of JSON: {"v":1,"type":"node_freed"|"node_taken"|"register"|"status",...}.
std::string encode(const Request& request);

// Throws gaptrain::InputError naming the field when `json` is not a valid request of version
// kVersion (unknown type or key, wrong type, missing field).
Request decode(std::string_view json);

// The type name used on the wire ("node_freed", ...), for logs.
std::string_view type_name(const Request& request);

}  // namespace gaptrain::protocol
