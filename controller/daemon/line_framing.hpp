// The framing of the daemon's transport (docs/protocol.md), apart from the sockets so that it is
// tested and fuzzed on bytes alone: a request is the bytes up to the first '\n', without it and
// without one '\r' just before it; a client that half-closes without the final '\n' still gets
// its line answered. A line longer than the cap is refused as soon as it is known to be, whether
// or not its end has come, and no more than the cap (plus the two bytes that end a line) is ever
// kept. Bytes after the first line are ignored: one request per connection.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace gaptrain::daemon {

class LineFramer {
 public:
  enum class State {
    incomplete,  // no whole line yet: wait for more bytes
    line,        // line() is the request
    too_long,    // the line is over the cap: refuse it
    empty,       // the client closed without sending a byte: nothing to answer
  };

  explicit LineFramer(std::size_t max_line) : max_line_(max_line) {}

  // Adds bytes received. Once the state is not `incomplete`, it stays and bytes are ignored.
  State feed(std::string_view bytes);
  // The client closed its side: what it sent so far is its line.
  State finish();
  State state() const noexcept { return state_; }
  // The request line, when state() is `line`.
  std::string_view line() const noexcept { return line_; }
  std::size_t max_line() const noexcept { return max_line_; }

 private:
  // The line has ended (a '\n' or the client's close): drops one '\r' and judges its length.
  State end_line();

  std::size_t max_line_;
  std::string line_;
  State state_ = State::incomplete;
};

}  // namespace gaptrain::daemon
