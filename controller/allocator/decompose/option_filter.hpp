// Dropping dominated options from a job's option list (allocator.cpp lists them; the
// multiple-choice MILP and the shortfall search choose among them).
#pragma once

#include <cstddef>

#include "allocator/milp/option_milp.hpp"

namespace gaptrain::allocator {

// The filter compares every option with the kept ones: quadratic, so callers use it only for
// lists up to this long.
constexpr std::size_t kMostOptionsToFilter = 2000;

// Removes every option that an option kept before it uses no more nodes of any class than:
// options go from the most valuable down (of equal values, the first listed first), so the kept
// one is worth at least as much, and swapping it in keeps any allocation feasible and no worse.
// The optimum stays, and the MILP loses most of its columns when there are several classes.
// (Of two equal-valued options the later one stays even when it uses fewer nodes: keeping an
// option is always safe.) `start` moves to its option's place, or to the option that removed it.
void drop_dominated(JobOptions& options);

}  // namespace gaptrain::allocator
