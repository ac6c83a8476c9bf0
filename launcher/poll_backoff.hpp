// How long gaptrain-launch waits before its next report to gaptraind. While gaptraind answers,
// every poll period; while it does not (down, stopped, restarting), the wait doubles with each
// unanswered report, up to kMostBetweenReports (or the poll period, when that is longer): the
// launcher keeps its steps running and keeps asking, without hammering a controller that is
// struggling, and learns within a few seconds once it answers again. Pure.
#pragma once

#include <chrono>

namespace gaptrain::launch {

inline constexpr std::chrono::milliseconds kMostBetweenReports{5000};

// `unanswered`: reports in a row that got no instruction (0 after an answer).
std::chrono::milliseconds next_report_in(std::chrono::milliseconds poll, int unanswered);

}  // namespace gaptrain::launch
