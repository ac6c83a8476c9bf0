#include "gaptrain/json_text.hpp"

#include <climits>
#include <cmath>
#include <memory>
#include <optional>
#include <string>

#include "gaptrain/input_error.hpp"
#include "gaptrain/utf8.hpp"

namespace gaptrain {
namespace {

// jsoncpp's formatted errors read "* Line 3, Column 5\n  Missing ',' ...\n" per error; the
// first one, on one line, is what a person needs.
std::string first_parse_error(const std::string& formatted) {
  std::string location;
  std::string what;
  std::size_t start = 0;
  while (start < formatted.size() && what.empty()) {
    std::size_t end = formatted.find('\n', start);
    if (end == std::string::npos) end = formatted.size();
    std::string line = formatted.substr(start, end - start);
    start = end + 1;
    if (line.starts_with("* ")) {
      location = line.substr(2);
    } else if (!location.empty()) {
      const std::size_t text = line.find_first_not_of(' ');
      if (text != std::string::npos) what = line.substr(text);
    }
  }
  if (what.empty()) return "invalid JSON";
  return "invalid JSON: " + location + ": " + what;
}

// At most `max_bytes` of `text`, cut at a UTF-8 character boundary and followed by "...".
std::string cut(const std::string& text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  std::size_t end = max_bytes;
  // Back off to a UTF-8 character boundary (continuation bytes are 0b10xxxxxx).
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0U) == 0x80U) --end;
  return text.substr(0, end) + "...";
}

}  // namespace

Json::Value parse_strict_json(std::string_view text) {
  // JSON text is UTF-8 (RFC 8259). jsoncpp would keep a stray byte, and its writer would answer
  // with U+FFFD in its place: a name that was never given.
  if (const std::optional<std::size_t> bad = invalid_utf8_at(text)) {
    throw InputError("", "invalid JSON: byte " + std::to_string(*bad + 1) +
                             " is not valid UTF-8 (JSON text must be UTF-8)");
  }
  Json::CharReaderBuilder builder;
  Json::CharReaderBuilder::strictMode(&builder.settings_);
  const std::unique_ptr<Json::CharReader> reader(builder.newCharReader());
  Json::Value document;
  std::string errors;
  bool parsed = false;
  try {
    parsed = reader->parse(text.data(), text.data() + text.size(), &document, &errors);
  } catch (const Json::Exception& e) {
    // jsoncpp throws instead of reporting for some input, e.g. arrays nested deeper than its
    // stack limit (1000): bad input all the same, and callers expect only InputError.
    throw InputError("", std::string("invalid JSON: ") + e.what());
  }
  if (!parsed) throw InputError("", first_parse_error(errors));
  return document;
}

std::string describe_json(const Json::Value& value) {
  switch (value.type()) {
    case Json::nullValue: return "null";
    case Json::booleanValue: return value.asBool() ? "true" : "false";
    case Json::arrayValue: return "an array";
    case Json::objectValue: return "an object";
    case Json::stringValue: return Json::valueToQuotedString(cut(value.asString(), 40).c_str());
    case Json::intValue:
    case Json::uintValue:
    case Json::realValue: {
      Json::StreamWriterBuilder builder;
      builder["indentation"] = "";
      return Json::writeString(builder, value);
    }
  }
  return "a value";
}

std::string one_line_json(const Json::Value& value) {
  Json::StreamWriterBuilder builder;
  builder["indentation"] = "";
  builder["commentStyle"] = "None";
  builder["precision"] = 17;
  builder["emitUTF8"] = true;
  return Json::writeString(builder, value);
}

void throw_json_type_error(const std::string& field, std::string_view expected,
                           const Json::Value& got) {
  throw InputError(field, "expected " + std::string(expected) + ", got " + describe_json(got));
}

std::string json_key_in_path(const std::string& key) {
  // Keys are input too: a 10 MB key must not make a 10 MB message.
  constexpr std::size_t kMaxKeyBytes = 60;
  const bool plain = !key.empty() && key.size() <= kMaxKeyBytes &&
                     key.find_first_not_of(
                         "abcdefghijklmnopqrstuvwxyz"
                         "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") == std::string::npos;
  return plain ? key : Json::valueToQuotedString(cut(key, kMaxKeyBytes).c_str());
}

void reject_unknown_json_keys(const Json::Value& object, std::span<const std::string_view> allowed,
                              const std::string& prefix) {
  for (const std::string& key : object.getMemberNames()) {
    bool known = false;
    for (std::string_view a : allowed) known = known || key == a;
    if (known) continue;
    std::string list;
    for (std::string_view a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
    throw InputError(prefix + json_key_in_path(key), "unknown key (allowed: " + list + ")");
  }
}

const Json::Value* json_member(const Json::Value& object, std::string_view key) {
  return object.find(key.data(), key.data() + key.size());
}

const Json::Value& json_required(const Json::Value& object, std::string_view key,
                                 std::string_view prefix) {
  const Json::Value* value = json_member(object, key);
  if (value == nullptr) {
    throw InputError(std::string(prefix) + std::string(key), "required key is missing");
  }
  return *value;
}

const Json::Value& json_object(const Json::Value& value, std::string_view field) {
  if (!value.isObject()) throw_json_type_error(std::string(field), "an object", value);
  return value;
}

const Json::Value& json_array(const Json::Value& value, std::string_view field) {
  if (!value.isArray()) throw_json_type_error(std::string(field), "an array", value);
  return value;
}

int json_int(const Json::Value& value, const std::string& field) {
  if (value.isInt()) return value.asInt();
  if (value.isNumeric() && std::trunc(value.asDouble()) == value.asDouble()) {
    throw InputError(field, "expected an integer between " + std::to_string(INT_MIN) + " and " +
                                std::to_string(INT_MAX) + ", got " + describe_json(value));
  }
  throw_json_type_error(field, "an integer", value);
}

double json_number(const Json::Value& value, const std::string& field) {
  if (!value.isNumeric()) throw_json_type_error(field, "a number", value);
  return value.asDouble();
}

std::string json_string(const Json::Value& value, const std::string& field) {
  if (!value.isString()) throw_json_type_error(field, "a string", value);
  return value.asString();
}

std::uint64_t json_whole_number(const Json::Value& value, const std::string& field,
                                std::uint64_t max) {
  if (!value.isIntegral() || !value.isUInt64() || value.asLargestUInt() > max) {
    throw_json_type_error(field, "a whole number from 0 to " + std::to_string(max), value);
  }
  return value.asLargestUInt();
}

}  // namespace gaptrain
