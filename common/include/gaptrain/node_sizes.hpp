// A job's node counts ("allowed sizes"): any count from MIN to MAX, or only some of
// them. A pipeline- or tensor-parallel job runs only at multiples of its group size, and many
// data-parallel jobs want powers of two. The text form is sbatch's --array index spelling,
// which Slurm users know: "2-8" (every count), "2-8:2" (2, 4, 6, 8: a step), "1,2,4,8" (a
// list), or items mixed ("2,4-16:4"). sbatch --elastic and `gaptrain submit -N` read it; the
// registration and the allocator carry the list (`allowed_sizes`). Pure.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gaptrain {

// The most sizes a job may list: a job allowed that many different counts may as well run at
// any, and a registration stays a short message.
inline constexpr int kMaxAllowedSizes = 1024;

struct NodeSizes {
  int min = 1;
  int max = 1;
  // Sorted, no duplicates, from min to max; empty: every count from min to max.
  std::vector<int> allowed;

  friend bool operator==(const NodeSizes&, const NodeSizes&) = default;
};

// "2-8", "2-8:2", "1,2,4,8", "2,4-16:4": whole numbers written with digits alone, a step >= 1.
// Empty when `text` is not of that form; node_sizes_problem() then checks the values. A list
// that names every count from its smallest to its largest comes back with `allowed` empty.
std::optional<NodeSizes> node_sizes_from_text(std::string_view text);

// Why `sizes` is no job's node counts (1 <= min <= max <= bounds::kMaxNodes; `allowed` sorted,
// unique, within [min, max], naming min and max, at most kMaxAllowedSizes), in words for the
// user; empty when it is.
std::optional<std::string> node_sizes_problem(const NodeSizes& sizes);

// The text form: "MIN-MAX" ("N" when they are equal), or the allowed counts with runs of a step
// written A-B:S ("2-8:2", "1,2,4,8").
std::string to_text(const NodeSizes& sizes);

// Whether the job may run on `nodes` nodes.
bool allows(const NodeSizes& sizes, int nodes);

// The most nodes the job may run on among `nodes` or fewer: 0 when it may run on none of them.
int largest_allowed_at_most(const NodeSizes& sizes, int nodes);

}  // namespace gaptrain
