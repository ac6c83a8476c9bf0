// The line server's framing (controller/daemon/line_framing.hpp): the bytes of one connection,
// cut into the pieces recv() might return, to LineFramer, checked against a plain reading of
// docs/protocol.md's rule. Input: byte 0 the line cap (1..64), byte 1 how the bytes are cut and
// whether the client half-closes at the end; the rest what the client sends (any bytes: NULs,
// CRs, several lines, none). Findings: a line delivered that is over the cap or is not what was
// sent up to the first '\n' (less one '\r'), an over-long line not refused, a verdict that
// changes once given, one given before the bytes decide it.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.hpp"
#include "line_framing.hpp"

using gaptrain::daemon::LineFramer;
using gaptrain::fuzz::check;
using State = LineFramer::State;

namespace {

// The rule, read plainly from the whole stream: what the framer must say once it has
// `stream` (and, with `closed`, the client's half-close).
State expected(std::string_view stream, std::size_t max_line, bool closed, std::string& line) {
  const std::size_t newline = stream.find('\n');
  std::string_view candidate = stream.substr(0, newline);
  const bool ended = newline != std::string_view::npos || closed;
  if (ended) {
    if (newline == std::string_view::npos && candidate.empty()) return State::empty;
    if (candidate.ends_with('\r')) candidate.remove_suffix(1);
    if (candidate.size() > max_line) return State::too_long;
    line = std::string(candidate);
    return State::line;
  }
  // Not ended: refused as soon as no ending could bring it under the cap.
  const bool may_fit = candidate.size() <= max_line ||
                       (candidate.size() == max_line + 1 && candidate.ends_with('\r'));
  return may_fit ? State::incomplete : State::too_long;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const std::size_t max_line = 1 + data[0] % 64;
  const std::uint8_t cutting = data[1];
  const bool half_close = (cutting & 1U) != 0;
  const std::string_view bytes = gaptrain::fuzz::as_text(data + 2, size - 2);

  LineFramer framer(max_line);
  std::size_t fed = 0;
  std::uint32_t seed = cutting;
  State previous = State::incomplete;
  std::string previous_line;
  while (fed < bytes.size()) {
    seed = seed * 1103515245U + 12345U;  // piece sizes 1..16, as recv() may cut them
    const std::size_t piece = std::min<std::size_t>(1 + (seed >> 16) % 16, bytes.size() - fed);
    const State state = framer.feed(bytes.substr(fed, piece));
    fed += piece;
    std::string line;
    const State want = expected(bytes.substr(0, fed), max_line, false, line);
    check(state == want, "feed(): the verdict is not the rule's for the bytes so far");
    if (state == State::line) {
      check(framer.line() == line, "the line delivered is not the one sent");
      check(framer.line().size() <= max_line, "a line over the cap was delivered");
    }
    check(previous == State::incomplete || state == previous, "a verdict changed once given");
    if (previous == State::line) check(framer.line() == previous_line, "the line changed");
    previous = state;
    previous_line = std::string(framer.line());
  }
  if (half_close) {
    const State state = framer.finish();
    std::string line;
    check(state == expected(bytes, max_line, true, line),
          "finish(): the verdict is not the rule's for the whole stream");
    if (state == State::line) check(framer.line() == line, "the line at close is not the one sent");
    check(previous == State::incomplete || state == previous, "finish() changed a verdict");
  }
  return 0;
}
