// The hole-aware MILP allocator: decides which idle or held nodes each elastic job gets.
// Pure: plain structs in, plain structs out, no I/O. The model is documented, with its math,
// in docs/allocator.md.
#pragma once

#include "allocator/allocation.hpp"

namespace gaptrain::allocator {

// Solves `problem` to optimality (within problem.solver.mip_gap) or until the time limit, in
// which case the best incumbent is returned with ModelStatus::time_limit, never nothing.
//
// Throws InputError when the problem fails validate(). Solver failures do not throw: they come
// back as CallStatus::error with a message, and the allocation then keeps every job's current
// nodes (the safe answer: nothing moves).
AllocationResult allocate(const AllocationProblem& problem);

}  // namespace gaptrain::allocator
