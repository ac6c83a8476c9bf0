// The controller's changes to Slurm (docs/design.md "Resizing a running job", docs/slurm-notes.md):
// shrink, grow (satellite allocations), release, lease, admit, requeue: the port through which
// the decision core (resizer.hpp) changes Slurm. gaptraind implements it with libslurm
// (controller/daemon/libslurm_actions.hpp), the simulator on its replayed cluster, unit tests
// with a fake; the Slurm mechanics live in those, never in the core.
//
// Every call returns a result and never throws. There are no retries inside: a refusal is
// reported with Slurm's message and the caller re-plans or retries with backoff. Slurm's polled
// state stays the truth; a result only says what this call saw.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/cluster.hpp"

namespace gaptrain::core {

struct ActionResult {
  bool ok = false;
  std::string error;  // when !ok: what was asked, then Slurm's slurm_strerror text
};

struct ShrinkRequest {
  std::uint32_t job_id = 0;
  // The job's batch host, as the caller last saw it: it can never be given up (losing it
  // ends the batch script), so a request without it is refused before Slurm is asked.
  std::string batch_host;
  std::vector<std::string> keep_nodes;  // the nodes the job keeps, batch host included
};

struct GrowRequest {
  std::uint32_t job_id = 0;
  std::string partition;  // the satellites' partition: the job's, or satellite_partition
  std::vector<std::string> add_nodes;  // idle nodes only: the allocation never waits
  // The job's owner: the satellite allocations are made on the user's behalf (we run as root).
  std::uint32_t user_id = 0;
  std::uint32_t group_id = 0;
  std::uint32_t time_limit_minutes = 0;  // the satellites' lease; 0: the partition's default
  // The job's account and QOS, which its satellites are charged to ("": the user's default).
  std::string account;
  std::string qos;
  std::string tres_per_node;  // the job's per-node GRES, which each satellite asks for too
  // The node type the satellites are of, asked for as a constraint when it is a
  // feature ("" none); a GRES type is in tres_per_node instead (satellite_tres).
  std::string constraint;
  // The reservation the satellites are made in (satellite_reservation; "" none): one of licences
  // only with ANY_NODES, so that slurmctld does not refuse them for a pending job's priority.
  std::string reservation = {};
};

// What a satellite on a node of `type` asks as its per-node GRES: the job's, its untyped GPUs
// given the node's GPU type when the type is a GRES type ("gres/gpu:4" -> "gres/gpu:a100:4").
std::string satellite_tres(const std::string& tres_per_node, const std::string& type,
                           NodeTypeSource source);

struct GrowResult {
  bool ok = false;
  std::string error;
  // node -> the job id of the satellite allocation that holds it for the job (when ok)
  std::map<std::string, std::uint32_t> satellites;
};

struct AdmitRequest {
  std::uint32_t job_id = 0;  // a pending job that waits for gaptraind (parking.hpp)
  std::vector<std::string> nodes;
  std::uint32_t time_limit_minutes = 0;  // its first lease
  // Its AdminComment with gaptraind's mark (job_mark.hpp), written with the admission so that no
  // moment exists in which the job's own limit is known to gaptraind's memory alone.
  std::string admin_comment;
  // How it waits: held (--hold), which the admission releases; or parked (a begin time far
  // ahead), which the admission's begin time of now ends alone.
  bool held = true;
  // The home mode (home.hpp): the job starts in this partition of home nodes, on one of them
  // (Slurm picks it), sharing it, with no GRES, at its own time limit (`time_limit_minutes`):
  // `nodes` are then the holes it will grow into once it runs. "": on `nodes` themselves.
  std::string home_partition = {};
};

class SlurmActions {
 public:
  virtual ~SlurmActions() = default;

  // Keeps only `keep_nodes`; Slurm kills the job's steps on the others.
  virtual ActionResult shrink(const ShrinkRequest& request) = 0;
  // Adds `add_nodes` to the job as satellites: one immediate single-node allocation per node,
  // named satellite_name(job_id), which the job's launcher runs its steps in (srun --jobid).
  // All or nothing: on a failure the satellites already made are cancelled.
  //
  // Not Slurm's expand-and-merge: on 22.05 a merged node keeps no CPUs allocated in
  // select/cons_tres, so Slurm starts other jobs on it (docs/slurm-notes.md).
  virtual GrowResult grow(const GrowRequest& request) = 0;
  // Ends satellite allocations: their nodes go back to Slurm as from any job that ends.
  virtual ActionResult release(const std::vector<std::uint32_t>& satellite_ids) = 0;
  // The lease: the job's TimeLimit becomes `minutes` (counted from its start, as in Slurm).
  virtual ActionResult set_time_limit(std::uint32_t job_id, std::uint32_t minutes) = 0;
  // Gives a waiting pending job its nodes and first lease and makes it eligible: begin time
  // now, and a held one released.
  virtual ActionResult admit(const AdmitRequest& request) = 0;
  // Back to the queue, waiting for gaptraind (parked, or held where parking is refused): it is
  // admitted again (it resumes from its checkpoint), ordered by its priority.
  virtual ActionResult requeue(std::uint32_t job_id) = 0;
  // Parks a pending job (begin time far ahead, parking.hpp): an admission Slurm did not start.
  // Not a hold: a parked job keeps the priority Slurm computes, and its place in the queue.
  virtual ActionResult park(std::uint32_t job_id) = 0;
};

// Why a shrink request must be refused without asking Slurm; empty when it may go ahead.
std::string shrink_refusal(const ShrinkRequest& request);

// "n1,n3,n4": the comma-separated list Slurm's req_nodes takes.
std::string join_nodes(const std::vector<std::string>& nodes);

}  // namespace gaptrain::core
