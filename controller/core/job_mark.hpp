// What gaptraind must know of a job it took under its control and cannot ask Slurm for once it
// changed the job: the time limit the job was submitted with (admission replaces it with
// leases) and the node range it was submitted with (admission sets the count it starts at).
// Kept in the job's AdminComment, which only an admin (gaptraind: root or SlurmUser) may
// write and slurmctld keeps across restarts, so that a lost or corrupt state file costs no job
// its limit (a job submitted without --time ended TIMEOUT at its lease). The mark is
// one word, "gaptrain:limit=MIN,nodes=A-B", beside whatever else the site keeps there; in the
// home mode (home.hpp) also ",trains_in=PARTITION" and ",tres=GRES": the elastic partition a job
// whose batch script moved to the home partition trains in, and the per-node GRES its satellites
// ask for (the home node has none; "+" stands for the commas of Slurm's list). Pure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "cluster.hpp"

namespace gaptrain::core {

struct JobMark {
  std::optional<std::uint32_t> time_limit_minutes;  // 0: none (INFINITE)
  std::optional<std::uint32_t> min_nodes;
  std::optional<std::uint32_t> max_nodes;
  std::string trains_in = {};      // "": not at home
  std::string tres_per_node = {};  // at home: Slurm's per-node TRES the job asked for ("": none)
  bool operator==(const JobMark&) const = default;
};

// The mark in `admin_comment`; empty fields where there is none or it does not read.
JobMark read_job_mark(std::string_view admin_comment);
// `admin_comment` with its mark replaced by `mark` (the rest kept as it was).
std::string with_job_mark(std::string_view admin_comment, const JobMark& mark);
// The mark an admission of pending `job` writes: a mark already there wins (a requeued job's
// record holds its lease and last size, not what it was submitted with).
JobMark admission_mark(const Job& job);

}  // namespace gaptrain::core
