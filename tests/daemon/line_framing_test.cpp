// The transport's framing on bytes alone (line_framing.hpp): one request line per connection,
// whatever the pieces it comes in, and a cap that holds whether or not the line's end came.
#include "line_framing.hpp"

#include <gtest/gtest.h>

#include <string>

namespace gaptrain::daemon::line_framing_test {
namespace {

using State = LineFramer::State;

TEST(LineFramer, ALineInPiecesIsTheLineWithoutItsEnd) {
  LineFramer framer(64);
  EXPECT_EQ(framer.feed("hel"), State::incomplete);
  EXPECT_EQ(framer.feed("lo\r"), State::incomplete);
  EXPECT_EQ(framer.feed("\nignored after the line\n"), State::line);
  EXPECT_EQ(framer.line(), "hello");
  EXPECT_EQ(framer.feed("more"), State::line) << "one request per connection";
  EXPECT_EQ(framer.line(), "hello");
}

TEST(LineFramer, AHalfCloseEndsTheLine) {
  LineFramer framer(64);
  EXPECT_EQ(framer.feed("no newline"), State::incomplete);
  EXPECT_EQ(framer.finish(), State::line);
  EXPECT_EQ(framer.line(), "no newline");
  LineFramer silent(64);
  EXPECT_EQ(silent.finish(), State::empty);
}

TEST(LineFramer, BytesAreKeptAsSent) {
  LineFramer framer(64);
  const std::string bytes("a\0b\rc", 5);
  EXPECT_EQ(framer.feed(bytes + "\n"), State::line);
  EXPECT_EQ(framer.line(), bytes) << "NULs and inner CRs are the decoder's to refuse";
}

TEST(LineFramer, TheCapHoldsBeforeTheLineEnds) {
  LineFramer exact(4);
  EXPECT_EQ(exact.feed("abcd\r\n"), State::line) << "the cap is on the line, not its end";
  EXPECT_EQ(exact.line(), "abcd");

  LineFramer over(4);
  EXPECT_EQ(over.feed("abcde"), State::too_long) << "refused without waiting for its end";
  EXPECT_EQ(over.feed("\n"), State::too_long);

  LineFramer cr_then_more(4);
  EXPECT_EQ(cr_then_more.feed("abcd\r"), State::incomplete);
  EXPECT_EQ(cr_then_more.feed("x"), State::too_long);

  LineFramer in_pieces(4);
  EXPECT_EQ(in_pieces.feed("ab"), State::incomplete);
  EXPECT_EQ(in_pieces.feed("cde\n"), State::too_long);

  LineFramer at_close(4);
  EXPECT_EQ(at_close.feed("abcd\r"), State::incomplete);
  EXPECT_EQ(at_close.finish(), State::line);
  EXPECT_EQ(at_close.line(), "abcd");
}

}  // namespace
}  // namespace gaptrain::daemon::line_framing_test
