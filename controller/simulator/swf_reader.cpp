// The Standard Workload Format reader (parse_swf, workload_io.hpp): the header's machine
// size and start time, one job per record the replay can use.
#include <limits>
#include <optional>
#include <string>

#include "simulator/record_lexing.hpp"
#include "simulator/workload_io.hpp"

namespace gaptrain::sim {
namespace {

using namespace lexing;

constexpr std::size_t kSwfFields = 18;

// The machine-size and start-time header lines ("; MaxNodes: 100"); other header lines are
// comments for people. The value is the first token after the key, so a trailing note is fine.
struct SwfHeader {
  long long max_nodes = 0;
  long long max_procs = 0;
  long long unix_start_time = 0;
};

void parse_swf_header_line(std::string_view line, const Where& where, SwfHeader& header) {
  line.remove_prefix(1);  // ';'
  const std::size_t key_start = line.find_first_not_of(" \t");
  if (key_start == std::string_view::npos) return;
  line.remove_prefix(key_start);
  const std::pair<std::string_view, long long*> keys[] = {
      {"MaxNodes:", &header.max_nodes},
      {"MaxProcs:", &header.max_procs},
      {"UnixStartTime:", &header.unix_start_time},
  };
  for (const auto& [key, target] : keys) {
    if (!line.starts_with(key)) continue;
    std::array<std::string_view, 1> value;
    const bool has_value = split_whitespace(line.substr(key.size()), value) > 0;
    const std::optional<long long> number =
        has_value ? to_integer<long long>(value[0]) : std::nullopt;
    if (!number) {
      where.fail(std::string(key) + " expected an integer, got " +
                 quoted(has_value ? value[0] : ""));
    }
    *target = *number;
    return;
  }
}

// One record's fields, as written (for messages) and as numbers. SWF numbers are written as
// integers or decimals, -1 meaning unknown.
struct SwfFields {
  std::array<std::string_view, kSwfFields> text;
  std::array<double, kSwfFields> value{};
};

SwfFields split_swf_record(std::string_view line, const Where& where) {
  SwfFields fields;
  const std::size_t count = split_whitespace(line, fields.text);
  if (count != kSwfFields) {
    where.fail("expected " + std::to_string(kSwfFields) + " fields, got " + std::to_string(count));
  }
  for (std::size_t i = 0; i < kSwfFields; ++i) {
    const std::optional<double> value = to_number(fields.text[i]);
    if (!value) {
      where.fail("field " + std::to_string(i + 1) + ": expected a number, got " +
                 quoted(fields.text[i]));
    }
    fields.value[i] = *value;
  }
  return fields;
}

// Field `number` (1-based, as SWF numbers them), which SWF defines as a count or an id.
long long swf_integer(const SwfFields& fields, std::size_t number, const Where& where) {
  const std::string_view text = fields.text[number - 1];
  const std::optional<long long> value = to_integer<long long>(text);
  if (!value) {
    where.fail("field " + std::to_string(number) + ": expected an integer, got " + quoted(text));
  }
  return *value;
}

// One record, or nothing when the log cannot replay it (run time or size unknown or 0).
std::optional<SwfJob> parse_swf_record(std::string_view line, const Where& where) {
  const SwfFields f = split_swf_record(line, where);
  const double submit = f.value[1];
  const double run = f.value[3];
  const double requested_time = f.value[8];
  if (!(submit >= 0 && submit <= bounds::kMaxTraceTimeS)) {
    where.fail(
        "field 2: expected a known submit time >= 0 and at most 1e10 (seconds into the "
        "log), got " +
        quoted(f.text[1]));
  }
  // -1 is unknown; a known time is bounded so that no time the replay forms loses its seconds.
  const std::pair<std::size_t, const char*> durations[] = {{4, "run time"}, {9, "requested time"}};
  for (const auto& [number, what] : durations) {
    if (f.value[number - 1] > bounds::kMaxSeconds) {
      where.fail("field " + std::to_string(number) + ": expected a " + what + " of at most " +
                 kTenYears + " seconds (ten years) or -1 (unknown), got " +
                 quoted(f.text[number - 1]));
    }
  }
  const long long id = swf_integer(f, 1, where);
  const std::size_t procs_field = f.value[4] > 0 ? 5 : 8;  // allocated, else requested
  const long long procs = swf_integer(f, procs_field, where);
  if (run <= 0 || procs <= 0) return std::nullopt;

  SwfJob job;
  job.id = id;
  job.submit_s = submit;
  job.run_s = run;
  // Wider than any int means wider than the machine: clamped here, skipped by the caller.
  job.nodes = static_cast<int>(std::min<long long>(procs, std::numeric_limits<int>::max()));
  job.requested_s = requested_time > 0 ? requested_time : run;
  return job;
}

}  // namespace

SwfLog parse_swf(std::string_view text, const std::string& name) {
  SwfLog log;
  SwfHeader header;
  LineReader lines(text);
  std::string_view line;
  while (lines.next(line)) {
    const Where where{name, lines.number()};
    if (line.starts_with(';')) {
      parse_swf_header_line(line, where, header);
    } else if (!is_blank(line)) {
      if (std::optional<SwfJob> job = parse_swf_record(line, where)) {
        log.jobs.push_back(*job);
      } else {
        ++log.skipped;
      }
    }
  }
  const long long size = header.max_nodes > 0 ? header.max_nodes : header.max_procs;
  if (size <= 0 || size > std::numeric_limits<int>::max()) {
    throw InputError(name,
                     "the header gives no machine size: expected a \"; MaxNodes: N\" or "
                     "\"; MaxProcs: N\" line with 1 <= N <= 2^31-1");
  }
  log.max_nodes = static_cast<int>(size);
  log.unix_start_time = header.unix_start_time;
  // Filtered after the whole file is read because SWF does not promise the header comes first.
  log.skipped += static_cast<int>(
      std::erase_if(log.jobs, [&](const SwfJob& job) { return job.nodes > log.max_nodes; }));
  return log;
}

}  // namespace gaptrain::sim
