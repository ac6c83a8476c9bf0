// The wire protocol's decoders (common/src/protocol.cpp, docs/protocol.md): decode() reads every
// request line gaptraind receives (from the plugin, gaptrain-launch, `gaptrain status`),
// decode_launch_reply() the reply line gaptrain-launch reads back. Input: one line of text.
// Bad input must be a gaptrain::InputError; what decodes must encode to a line that decodes to
// the same message.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.hpp"
#include "gaptrain/input_error.hpp"
#include "gaptrain/protocol.hpp"

namespace protocol = gaptrain::protocol;
using gaptrain::fuzz::check;
using gaptrain::fuzz::must_succeed;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = gaptrain::fuzz::as_text(data, size);

  std::string line;
  try {
    const protocol::Request request = protocol::decode(text);
    check(!protocol::type_name(request).empty(), "type_name() is empty");
    line = protocol::encode(request);
  } catch (const gaptrain::InputError&) {
  }
  if (!line.empty()) {
    const std::string again = must_succeed([&] { return protocol::encode(protocol::decode(line)); },
                                           "decode(encode(request)) failed");
    check(again == line, "encode(decode(encode(request))) differs from encode(request)");
  }

  std::string reply;
  try {
    const protocol::LaunchInstruction instruction = protocol::decode_launch_reply(text);
    check(instruction.drain.size() <= instruction.nodes.size(), "more nodes to drain than nodes");
    reply = protocol::encode_reply(instruction);
  } catch (const gaptrain::InputError&) {
  }
  if (!reply.empty()) {
    const std::string again =
        must_succeed([&] { return protocol::encode_reply(protocol::decode_launch_reply(reply)); },
                     "decode_launch_reply(encode_reply(instruction)) failed");
    check(again == reply, "the launch reply does not survive encode -> decode -> encode");
  }
  return 0;
}
