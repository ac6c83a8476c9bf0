#include "line_framing.hpp"

namespace gaptrain::daemon {

LineFramer::State LineFramer::feed(std::string_view bytes) {
  if (state_ != State::incomplete) return state_;
  const std::size_t newline = bytes.find('\n');
  const std::string_view part = bytes.substr(0, newline);
  // Keep at most one byte over the cap (a '\r' that may end the line): the rest is refused anyway.
  const std::size_t room = max_line_ + 1 - line_.size();
  line_.append(part.substr(0, room));
  if (newline == std::string_view::npos) {
    // Over the cap even if the next byte is '\n' (a '\r' counts only right before it).
    if (part.size() > room || (line_.size() > max_line_ && line_.back() != '\r')) {
      state_ = State::too_long;
      line_.clear();
    }
    return state_;
  }
  if (part.size() > room) {
    state_ = State::too_long;
    line_.clear();
    return state_;
  }
  return end_line();
}

LineFramer::State LineFramer::finish() {
  if (state_ != State::incomplete) return state_;
  if (line_.empty()) {
    state_ = State::empty;
    return state_;
  }
  return end_line();
}

LineFramer::State LineFramer::end_line() {
  if (line_.ends_with('\r')) line_.pop_back();
  if (line_.size() > max_line_) {
    state_ = State::too_long;
    line_.clear();
    return state_;
  }
  state_ = State::line;
  return state_;
}

}  // namespace gaptrain::daemon
