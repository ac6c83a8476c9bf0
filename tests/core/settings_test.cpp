// The settings table (core/settings.hpp) is the one place a default lives: the parser, the
// structs, the shipped etc/gaptraind.json and etc/README.md's table must all agree with it.
#include "core/settings.hpp"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/planner.hpp"
#include "core/resizer.hpp"
#include "gaptrain/input_error.hpp"
#include "gaptrain/text_file.hpp"

namespace gaptrain::core::settings_test {
namespace {

const std::string kSourceDir = GAPTRAIN_SOURCE_DIR;

// The lines of `text`, without their line ends.
std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::string::size_type start = 0;
  while (start < text.size()) {
    const auto end = text.find('\n', start);
    lines.push_back(text.substr(start, end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return lines;
}

// The key and the value of a `  "key": value,` line of a JSON object written one key a line.
// (Plain string work rather than std::regex: GCC 12's -Wmaybe-uninitialized fires inside
// <regex> under the sanitizer build's optimisation, and warnings are errors.)
std::optional<std::pair<std::string, std::string>> json_member(const std::string& line) {
  const auto open = line.find_first_not_of(' ');
  if (open == std::string::npos || line[open] != '"') return std::nullopt;
  const auto close = line.find("\": ", open + 1);
  if (close == std::string::npos) return std::nullopt;
  std::string value = line.substr(close + 3);
  if (!value.empty() && value.back() == ',') value.pop_back();
  return std::make_pair(line.substr(open + 1, close - open - 1), value);
}

// The key and the default of a "| `key` | `default` | ..." row of a Markdown table.
std::optional<std::pair<std::string, std::string>> table_row(const std::string& line) {
  if (!line.starts_with("| `")) return std::nullopt;
  const auto key_end = line.find('`', 3);
  if (key_end == std::string::npos || line.compare(key_end, 5, "` | `") != 0) return std::nullopt;
  const auto value_end = line.find('`', key_end + 5);
  if (value_end == std::string::npos) return std::nullopt;
  return std::make_pair(line.substr(3, key_end - 3),
                        line.substr(key_end + 5, value_end - key_end - 5));
}

std::vector<std::string> table_keys() {
  std::vector<std::string> keys;
  for (const Setting& setting : daemon_settings()) keys.emplace_back(setting.key);
  return keys;
}

TEST(Settings, EachDefaultParsesToTheStructsDefault) {
  for (const Setting& setting : daemon_settings()) {
    const std::string json =
        "{\"" + std::string(setting.key) + "\": " + std::string(setting.default_json) + "}";
    EXPECT_EQ(parse_config(json), DaemonConfig{}) << json;
  }
}

TEST(Settings, TheShippedConfigurationIsTheTableInItsOrder) {
  const std::string text = read_text_file(kSourceDir + "/etc/gaptraind.json");
  EXPECT_EQ(parse_config(text), DaemonConfig{});
  std::vector<std::string> keys;
  for (const std::string& row : lines_of(text)) {
    const auto member = json_member(row);
    if (!member) continue;
    keys.push_back(member->first);
    const Setting* setting = find_setting(member->first);
    ASSERT_NE(setting, nullptr) << row;
    EXPECT_EQ(member->second, setting->default_json) << row;
  }
  EXPECT_EQ(keys, table_keys());
}

TEST(Settings, TheAdminTableListsEveryKeyWithItsDefault) {
  const std::string text = read_text_file(kSourceDir + "/etc/README.md");
  std::map<std::string, std::string> documented;
  for (const std::string& line : lines_of(text)) {
    if (const auto row = table_row(line)) documented[row->first] = row->second;
  }
  ASSERT_EQ(documented.size(), daemon_settings().size());
  for (const Setting& setting : daemon_settings()) {
    const auto it = documented.find(std::string(setting.key));
    ASSERT_NE(it, documented.end()) << setting.key << " is not in etc/README.md's table";
    EXPECT_EQ(it->second, setting.default_json) << setting.key;
  }
}

TEST(Settings, ThePlannerAndTheResizerStartFromTheDaemonsDefaults) {
  const DaemonConfig config;
  EXPECT_EQ(PlannerSettings{}.horizon_s, config.horizon_s);
  EXPECT_EQ(PlannerSettings{}.elastic_partitions, config.elastic_partitions);
  EXPECT_EQ(ResizerSettings{}.lease_s, config.lease_s);
  EXPECT_EQ(ResizerSettings{}.drain_grace_s, config.drain_grace_s);
  EXPECT_EQ(ResizerSettings{}.reclaim_grace_s, config.reclaim_grace_s);
  EXPECT_EQ(ResizerSettings{}.max_notice_s, config.max_notice_s);
}

TEST(Settings, TheHelpTextShowsEveryKeyWithItsDefault) {
  const std::string help = settings_help();
  for (const Setting& setting : daemon_settings()) {
    EXPECT_NE(
        help.find("  " + std::string(setting.key) + " = " + std::string(setting.default_json)),
        std::string::npos)
        << setting.key;
  }
  EXPECT_NE(help.find("horizon_s = 120.0 (1 to 86400)"), std::string::npos) << help;
}

TEST(Settings, BoundsComeFromTheTable) {
  EXPECT_NO_THROW(parse_config(R"({"horizon_s": 86400})"));
  EXPECT_THROW(parse_config(R"({"horizon_s": 86401})"), InputError);
  EXPECT_THROW(parse_config(R"({"max_connections": 0})"), InputError);
  EXPECT_THROW(parse_config(R"({"no_such_key": 1})"), InputError);
}

}  // namespace
}  // namespace gaptrain::core::settings_test
