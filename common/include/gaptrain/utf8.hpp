// UTF-8 validation, shared by every reader of text that names things (CSV fields, JSON
// documents): a byte that is not UTF-8 is refused where it enters, rather than coming back out
// as U+FFFD, a name nobody gave. Pure.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace gaptrain {

// The length of the valid UTF-8 character at the start of `text` (an overlong form, a
// surrogate or a code point past U+10FFFF is not one), 0 when there is none.
std::size_t utf8_length(std::string_view text);

// The offset of the first byte of `text` that is not part of a valid UTF-8 character; nullopt
// when all of it is valid.
std::optional<std::size_t> invalid_utf8_at(std::string_view text);

}  // namespace gaptrain
