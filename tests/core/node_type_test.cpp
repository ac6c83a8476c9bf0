// A node's type from its features and GRES (core/node_type.hpp).
#include "core/node_type.hpp"

#include <gtest/gtest.h>

#include "core/config.hpp"
#include "gaptrain/input_error.hpp"

namespace gaptrain::core::node_type_test {
namespace {

const std::vector<std::string> kTypes = {"a100", "v100"};

TEST(NodeType, AFeatureNamedAsATypeIsTheNodesType) {
  const NodeTypeOf of = node_type("ib,v100,nvme", "", kTypes);
  EXPECT_EQ(of.type, "v100");
  EXPECT_EQ(of.source, NodeTypeSource::feature);
  // The site's order decides between two: a node marked both is of the first listed.
  EXPECT_EQ(node_type("v100,a100", "", kTypes).type, "a100");
  // A feature only containing a type's name is not it.
  EXPECT_EQ(node_type("a1000,xv100", "", kTypes).type, "");
}

TEST(NodeType, AGresTypeCountsWhenNoFeatureNamesOne) {
  NodeTypeOf of = node_type("ib", "gpu:a100:4(S:0-1),nvme:1", kTypes);
  EXPECT_EQ(of.type, "a100");
  EXPECT_EQ(of.source, NodeTypeSource::gres);
  // A socket list with a comma of its own is one GRES item.
  EXPECT_EQ(node_type("", "gpu:v100:2(S:0,2),gpu:a100:2(S:1)", kTypes).type, "a100");
  // Untyped GRES ("gpu:4") and a count named like a type are no type.
  EXPECT_EQ(node_type("", "gpu:4,v100:2", kTypes).type, "");
  // A feature wins over a GRES type.
  of = node_type("v100", "gpu:a100:4", kTypes);
  EXPECT_EQ(of.type, "v100");
  EXPECT_EQ(of.source, NodeTypeSource::feature);
}

TEST(NodeType, NodesWithoutANamedTypeAreUntyped) {
  Snapshot s;
  s.nodes = {{.name = "n1", .features = "a100"}, {.name = "n2", .features = "ib"}};
  assign_node_types(s, kTypes);
  EXPECT_EQ(s.nodes[0].type, "a100");
  EXPECT_EQ(s.nodes[1].type, "");
  EXPECT_EQ(s.nodes[1].type_source, NodeTypeSource::none);
  // With no types configured, types the snapshot came with are kept (a replayed cluster's).
  s.nodes[1].type = "cpu";
  assign_node_types(s, {});
  EXPECT_EQ(s.nodes[1].type, "cpu");
}

TEST(NodeType, TheConfigurationNamesTypesOnceEachAsFeatureNames) {
  EXPECT_EQ(parse_config(R"({"node_types": ["a100", "v100"]})").node_types, kTypes);
  EXPECT_TRUE(parse_config(R"({"node_types": []})").node_types.empty());
  EXPECT_THROW(parse_config(R"({"node_types": "a100,v100"})"), InputError);
  EXPECT_THROW(parse_config(R"({"node_types": ["a100", "a100"]})"), InputError);
  EXPECT_THROW(parse_config(R"({"node_types": ["a 100"]})"), InputError);
  EXPECT_THROW(parse_config(R"({"node_types": [""]})"), InputError);
  EXPECT_THROW(parse_config(R"({"node_types": [7]})"), InputError);
}

}  // namespace
}  // namespace gaptrain::core::node_type_test
