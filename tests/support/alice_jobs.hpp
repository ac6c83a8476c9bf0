// The elastic job most core and daemon tests start from: alice's (uid 1001) job `id`, running in
// partition "elastic" on n1 and n2 (batch host n1), and its registration for 1 to `max_nodes`
// nodes. A test changes what it is about on a copy.
#pragma once

#include <cstdint>

#include "core/cluster.hpp"
#include "gaptrain/protocol.hpp"

namespace gaptrain::testing {

inline core::Job alice_running_job(std::uint32_t id) {
  core::Job job;
  job.id = id;
  job.user_id = 1001;
  job.user = "alice";
  job.partition = "elastic";
  job.state = core::JobState::running;
  job.nodes = {"n1", "n2"};
  job.batch_host = "n1";
  return job;
}

inline protocol::JobRegistration alice_registration(std::uint32_t id, int max_nodes = 4) {
  protocol::JobRegistration r;
  r.job_id = id;
  r.user = "alice";
  r.batch_host = "n1";
  r.min_nodes = 1;
  r.max_nodes = max_nodes;
  return r;
}

}  // namespace gaptrain::testing
