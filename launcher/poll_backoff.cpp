#include "poll_backoff.hpp"

#include <algorithm>

namespace gaptrain::launch {

std::chrono::milliseconds next_report_in(std::chrono::milliseconds poll, int unanswered) {
  const std::chrono::milliseconds most = std::max(poll, kMostBetweenReports);
  std::chrono::milliseconds wait = poll;
  for (int i = 0; i < unanswered && wait < most; ++i) wait *= 2;
  return std::min(wait, most);
}

}  // namespace gaptrain::launch
