#include "registration_retry.hpp"

#include <algorithm>

namespace gaptrain::launch {

void RegistrationRetry::answered() {
  delay_ = first_;
  next_ = {};
}

void RegistrationRetry::sent(Clock::time_point now) {
  next_ = now + delay_;
  delay_ = std::min(delay_ * 2, most_);
}

}  // namespace gaptrain::launch
