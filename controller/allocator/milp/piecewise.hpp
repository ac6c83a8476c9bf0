// The pieces of a job's rate function over integer node counts, for the incremental (delta)
// piecewise-linear MILP formulation.
#pragma once

#include <vector>

#include "allocator/model/job_value.hpp"

namespace gaptrain::allocator {

struct Piece {
  int length = 0;        // nodes this piece spans
  double rise = 0.0;     // rate gained over the whole piece
  bool steeper = false;  // slope is larger than the previous piece's: needs an ordering binary
};

// Pieces of v-hat on type `on` over [0, max_nodes], merging collinear neighbours, so that for
// every integer k the sum over the pieces' first k nodes equals job.running_rate(on, k).
std::vector<Piece> rate_pieces(const ClassedJob& job, const JobOnType& on);

}  // namespace gaptrain::allocator
