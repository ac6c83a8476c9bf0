// The settings table (core/settings.hpp) is the one place a default lives: the parser, the
// structs, the shipped etc/gaptraind.json and etc/README.md's table must all agree with it.
#include "core/settings.hpp"

#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/planner.hpp"
#include "gaptrain/input_error.hpp"
#include "gaptrain/text_file.hpp"
#include "resizer.hpp"

namespace gaptrain::daemon {
namespace {

const std::string kSourceDir = GAPTRAIN_SOURCE_DIR;

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
  const std::regex line(R"re(^\s*"([a-z_]+)": (.*?),?$)re");
  std::smatch match;
  std::string::size_type start = 0;
  while (start < text.size()) {
    const auto end = text.find('\n', start);
    const std::string row = text.substr(start, end - start);
    if (std::regex_match(row, match, line)) {
      keys.push_back(match[1]);
      const Setting* setting = find_setting(match[1].str());
      ASSERT_NE(setting, nullptr) << row;
      EXPECT_EQ(match[2].str(), setting->default_json) << row;
    }
    if (end == std::string::npos) break;
    start = end + 1;
  }
  EXPECT_EQ(keys, table_keys());
}

TEST(Settings, TheAdminTableListsEveryKeyWithItsDefault) {
  const std::string text = read_text_file(kSourceDir + "/etc/README.md");
  std::map<std::string, std::string> documented;
  const std::regex row(R"(^\| `([a-z_]+)` \| `([^`]*)` \|)");
  std::smatch match;
  std::string::size_type start = 0;
  while (start < text.size()) {
    const auto end = text.find('\n', start);
    const std::string line = text.substr(start, end - start);
    if (std::regex_search(line, match, row)) documented[match[1]] = match[2];
    if (end == std::string::npos) break;
    start = end + 1;
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
  EXPECT_EQ(PlannerSettings{}.elastic_partition, config.elastic_partition);
  EXPECT_EQ(ResizerSettings{}.lease_s, config.lease_s);
  EXPECT_EQ(ResizerSettings{}.drain_grace_s, config.drain_grace_s);
  EXPECT_EQ(ResizerSettings{}.reclaim_grace_s, config.reclaim_grace_s);
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
}  // namespace gaptrain::daemon
