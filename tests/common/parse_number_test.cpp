#include "gaptrain/parse_number.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace gaptrain::parse_number_test {
namespace {

TEST(ParseNumber, TheWholeTextOrNothing) {
  EXPECT_EQ(parse_number<int>("42"), 42);
  EXPECT_EQ(parse_number<int>("-7"), -7);
  EXPECT_DOUBLE_EQ(*parse_number<double>("2.5e3"), 2500.0);
  for (const char* bad : {"", " 42", "42 ", "+42", "4 2", "42x", "0x2a", "forty-two"}) {
    EXPECT_FALSE(parse_number<int>(bad)) << '"' << bad << '"';
    EXPECT_FALSE(parse_number<double>(bad)) << '"' << bad << '"';
  }
}

TEST(ParseNumber, OutOfTheTypesRangeIsNothing) {
  EXPECT_FALSE(parse_number<std::uint32_t>("-1"));
  EXPECT_FALSE(parse_number<std::uint32_t>("4294967296"));
  EXPECT_EQ(parse_number<std::uint32_t>("4294967295"), std::numeric_limits<std::uint32_t>::max());
  EXPECT_FALSE(parse_number<int>("99999999999"));
  EXPECT_FALSE(parse_number<double>("1e999"));
}

// No input of gaptrain means an infinity or a NaN: they are refused where every number is read.
TEST(ParseNumber, ADoubleIsFinite) {
  for (const char* bad : {"inf", "-inf", "infinity", "nan", "NaN"}) {
    EXPECT_FALSE(parse_number<double>(bad)) << bad;
  }
}

}  // namespace
}  // namespace gaptrain::parse_number_test
