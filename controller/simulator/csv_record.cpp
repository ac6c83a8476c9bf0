#include "simulator/csv_record.hpp"

#include <array>
#include <cstdint>

#include "gaptrain/input_error.hpp"
#include "gaptrain/utf8.hpp"

namespace gaptrain::sim {
namespace {

std::string hex_byte(char c) {
  static constexpr std::array<char, 16> kDigits{'0', '1', '2', '3', '4', '5', '6', '7',
                                                '8', '9', 'a', 'b', 'c', 'd', 'e', 'f'};
  const auto value = static_cast<std::uint8_t>(c);
  return {'\\', 'x', kDigits[value >> 4U], kDigits[value & 0x0FU]};
}

bool is_space(char c) {
  return c == ' ' || c == '\t';
}

std::string column_name(std::size_t index, std::span<const std::string_view> names) {
  return index < names.size() ? std::string(names[index]) : "column " + std::to_string(index + 1);
}

}  // namespace

std::string quote_input(std::string_view value) {
  std::string out = "\"";
  std::size_t pos = 0;
  while (pos < value.size() && pos < kQuotedInputBytes) {
    const std::size_t length = utf8_length(value.substr(pos));
    const auto byte = static_cast<std::uint8_t>(value[pos]);
    if (length == 0 || (length == 1 && (byte < 0x20 || byte == 0x7F))) {
      out += hex_byte(value[pos]);
      ++pos;
    } else if (pos + length <= kQuotedInputBytes) {
      out.append(value.substr(pos, length));
      pos += length;
    } else {
      break;  // the character would not fit whole
    }
  }
  if (pos < value.size()) out += "...";
  out += '"';
  return out;
}

std::size_t split_csv_record(std::string_view line, std::span<std::string_view> fields,
                             std::span<std::string> unescaped,
                             std::span<const std::string_view> column_names) {
  std::size_t count = 0;
  std::size_t pos = 0;
  const auto fail = [&](const std::string& problem) {
    throw InputError("", column_name(count, column_names) + ": " + problem);
  };
  while (true) {
    while (pos < line.size() && is_space(line[pos])) ++pos;
    std::string_view field;
    std::string* storage = count < unescaped.size() ? &unescaped[count] : nullptr;
    bool stored_unescaped = false;
    if (pos < line.size() && line[pos] == '"') {
      const std::size_t open = pos++;
      std::size_t start = pos;
      if (storage != nullptr) storage->clear();
      while (true) {
        const std::size_t quote = line.find('"', pos);
        if (quote == std::string_view::npos) {
          fail("the quote opened at character " + std::to_string(open + 1) +
               " is not closed on this line (a quoted field cannot span lines)");
        }
        if (quote + 1 < line.size() && line[quote + 1] == '"') {  // "" is one quote
          if (storage != nullptr) storage->append(line.substr(start, quote + 1 - start));
          stored_unescaped = true;
          pos = quote + 2;
          start = pos;
          continue;
        }
        if (stored_unescaped && storage != nullptr) {
          storage->append(line.substr(start, quote - start));
        } else {
          field = line.substr(start, quote - start);
        }
        pos = quote + 1;
        break;
      }
      while (pos < line.size() && is_space(line[pos])) ++pos;
      if (pos < line.size() && line[pos] != ',') {
        fail("expected a comma after the closing quote, got " +
             quote_input(line.substr(pos, line.find(',', pos) - pos)));
      }
    } else {
      const std::size_t comma = line.find(',', pos);
      const std::size_t end = comma == std::string_view::npos ? line.size() : comma;
      field = line.substr(pos, end - pos);
      while (!field.empty() && is_space(field.back())) field.remove_suffix(1);
      if (field.find('"') != std::string_view::npos) {
        fail("a quote inside an unquoted field (quote the whole field, doubling its quotes): " +
             quote_input(field));
      }
      pos = end;
    }
    if (stored_unescaped && storage != nullptr) field = *storage;
    if (const std::optional<std::size_t> bad = invalid_utf8_at(field)) {
      fail("not valid UTF-8 (byte " + std::to_string(*bad + 1) +
           " of the field): " + quote_input(field));
    }
    if (count < fields.size()) fields[count] = field;
    ++count;
    if (pos >= line.size()) return count;
    ++pos;  // the comma; a line ending in one has an empty last field
  }
}

}  // namespace gaptrain::sim
