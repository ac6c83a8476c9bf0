// The Slurm partitions elastic jobs run in (gaptraind.json "elastic_partition": one name, or
// several joined by commas as sbatch's --partition spells a list, e.g. "gpu,cpu"). Each is a
// queue of its own (planner.hpp, partition_scopes): its holes, its jobs, its admissions and its
// queue policy caps; a node in two of them counts for the first listed. A job names one of them
// (-p gpu); a pending job Slurm lists in several partitions is in none of them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gaptrain::core {

class ElasticPartitions {
 public:
  // The default, kDefaultElasticPartition.
  ElasticPartitions();
  // "gpu,cpu"; throws InputError (key "elastic_partition") for an empty name, a blank or a
  // name listed twice, saying what to write instead. Not explicit: a partition's name is the
  // list of that one partition, as it is in gaptraind.json (and as sbatch -p reads it).
  ElasticPartitions(std::string_view comma_separated);  // NOLINT(google-explicit-constructor)
  ElasticPartitions(const char* comma_separated)        // NOLINT(google-explicit-constructor)
      : ElasticPartitions(std::string_view(comma_separated)) {}
  ElasticPartitions(const std::string& comma_separated)  // NOLINT(google-explicit-constructor)
      : ElasticPartitions(std::string_view(comma_separated)) {}

  bool contains(std::string_view partition) const;
  // Where `gaptrain submit` sends a job that names no partition, and the simulator's one.
  const std::string& first() const { return names_.front(); }
  const std::vector<std::string>& names() const { return names_; }
  // As written in gaptraind.json: "gpu,cpu".
  std::string joined() const;

  friend bool operator==(const ElasticPartitions&, const ElasticPartitions&) = default;

 private:
  std::vector<std::string> names_;  // never empty, no duplicates, in the order listed
};

}  // namespace gaptrain::core
