#include "core/parking.hpp"

namespace gaptrain::core {

bool is_parked(const Job& job, std::int64_t now) {
  return job.state == JobState::pending && !job.held && job.eligible_time - now >= kParkedAheadS;
}

}  // namespace gaptrain::core
