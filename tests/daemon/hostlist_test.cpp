#include "hostlist.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gaptrain::daemon::hostlist_test {
namespace {

TEST(Hostlist, HostlistsExpandAsSlurmWritesThem) {
  EXPECT_EQ(expand_hostlist("n[2-3]"), (std::vector<std::string>{"n2", "n3"}));
  EXPECT_EQ(expand_hostlist("a1,b[01-02]"), (std::vector<std::string>{"a1", "b01", "b02"}));
  EXPECT_TRUE(expand_hostlist(nullptr).empty());
  EXPECT_TRUE(expand_hostlist("").empty());
}

}  // namespace
}  // namespace gaptrain::daemon::hostlist_test
