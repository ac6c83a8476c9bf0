// The pieces every strict JSON reader of gaptrain shares (allocation problems, protocol
// messages, the state file, the daemon's config): one-line parse errors, short renderings of bad
// values and the readers of one field, so that every "field: expected X, got Y" message reads
// the same.
#pragma once

#include <json/json.h>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace gaptrain {

// Parses `text` strictly (no comments, no trailing commas, no duplicate keys, nothing that is
// not UTF-8). Throws
// InputError("", "invalid JSON: Line L, Column C: what") naming only the first error, on one
// line, so it fits a log line or a protocol reply.
Json::Value parse_strict_json(std::string_view text);

// A short rendering of `value` for "expected X, got Y": strings quoted and cut at 40 bytes (a
// hostile request cannot flood a log line), containers by kind, numbers as JSON writes them.
std::string describe_json(const Json::Value& value);

// Throws InputError(field, "expected EXPECTED, got <describe_json(got)>").
[[noreturn]] void throw_json_type_error(const std::string& field, std::string_view expected,
                                        const Json::Value& got);

// A key as it appears in a field path: bare when a plain identifier, else JSON-quoted, so odd
// characters (spaces, dots, newlines) cannot garble a one-line message; a key longer than 60
// bytes is cut there (then "...").
std::string json_key_in_path(const std::string& key);

// `value` as one line of JSON (no newline inside: the protocol is line-framed, the state file
// and the job file are read whole), doubles to 17 significant digits so that they survive a
// round trip bit for bit, strings in UTF-8. Every one-line writer of gaptrain uses it.
std::string one_line_json(const Json::Value& value);

// Throws InputError("<prefix><key>", "unknown key (allowed: a, b, c)") for the first member of
// `object` that is not in `allowed`.
void reject_unknown_json_keys(const Json::Value& object, std::span<const std::string_view> allowed,
                              const std::string& prefix = "");

// One field of an object: the member `key`, or nullptr when it is absent; json_required throws
// InputError(prefix + key, "required key is missing") instead (`prefix`: where the object is,
// such as "jobs[3].").
const Json::Value* json_member(const Json::Value& object, std::string_view key);
const Json::Value& json_required(const Json::Value& object, std::string_view key,
                                 std::string_view prefix = "");

// `value` itself when it is an object (an array), else InputError(field, "expected an object,
// got ..."). The field names (here and in json_required) are taken by value: a reference
// parameter bound to a temporary makes GCC 14 suspect the returned reference
// (-Wdangling-reference), although it refers into the value.
const Json::Value& json_object(const Json::Value& value, std::string_view field);
const Json::Value& json_array(const Json::Value& value, std::string_view field);

// A value of one type, or InputError(field, "expected ..., got ...") (throw_json_type_error). An
// integer out of int's range says so, rather than "not an integer".
int json_int(const Json::Value& value, const std::string& field);
double json_number(const Json::Value& value, const std::string& field);
std::string json_string(const Json::Value& value, const std::string& field);
// A whole number from 0 to `max` ("expected a whole number from 0 to MAX, got ..."). Checked
// before any conversion: jsoncpp throws its own error for a value out of the range asked for.
std::uint64_t json_whole_number(const Json::Value& value, const std::string& field,
                                std::uint64_t max);

}  // namespace gaptrain
