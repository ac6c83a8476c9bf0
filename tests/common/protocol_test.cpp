#include "gaptrain/protocol.hpp"

#include <gtest/gtest.h>

#include "gaptrain/input_error.hpp"

namespace gaptrain::protocol::protocol_test {
namespace {

template <typename T>
T round_trip(const T& message) {
  const std::string line = encode(message);
  EXPECT_EQ(line.find('\n'), std::string::npos) << line;
  return std::get<T>(decode(line));
}

// The field an InputError names for `json`, or "<no error>".
std::string error_field(std::string_view json) {
  try {
    decode(json);
  } catch (const InputError& e) {
    return e.field();
  }
  return "<no error>";
}

TEST(ProtocolTest, NodeEventsRoundTrip) {
  const NodeFreed freed = round_trip(NodeFreed{123, "n1"});
  EXPECT_EQ(freed.job_id, 123U);
  EXPECT_EQ(freed.node, "n1");
  const NodeTaken taken = round_trip(NodeTaken{4294967295U, "node-07.cluster", true});
  EXPECT_EQ(taken.job_id, 4294967295U);
  EXPECT_EQ(taken.node, "node-07.cluster");
  EXPECT_TRUE(taken.elastic);
}

TEST(ProtocolTest, RegistrationRoundTripsExactly) {
  JobRegistration r;
  r.job_id = 77;
  r.user = "alice";
  r.batch_host = "n3";
  r.min_nodes = 2;
  r.max_nodes = 8;
  r.curve = ScalingCurve({{1, 100.0}, {2, 190.1}, {4, 1.0 / 3.0}});
  r.up_cost_s = 18.5;
  r.down_cost_s = 0.0;
  const JobRegistration back = round_trip(r);
  EXPECT_EQ(back.job_id, 77U);
  EXPECT_EQ(back.user, "alice");
  EXPECT_EQ(back.batch_host, "n3");
  EXPECT_EQ(back.min_nodes, 2);
  EXPECT_EQ(back.max_nodes, 8);
  EXPECT_EQ(back.curve, r.curve);  // bit-exact doubles
  EXPECT_EQ(back.up_cost_s, 18.5);
  EXPECT_EQ(back.down_cost_s, 0.0);
}

TEST(ProtocolTest, RegistrationCarriesTheNoticeTheJobAsksFor) {
  JobRegistration r;
  r.job_id = 5;
  r.user = "alice";
  r.batch_host = "n1";
  EXPECT_EQ(encode(r).find("notice_s"), std::string::npos) << "left out when not asked";
  EXPECT_FALSE(round_trip(r).notice_s);
  r.notice_s = 45.5;
  EXPECT_EQ(round_trip(r).notice_s, 45.5);
  r.notice_s = 0.0;
  EXPECT_EQ(round_trip(r).notice_s, 0.0);
}

TEST(ProtocolTest, RegistrationMayLeaveCurveAndCostsToLearning) {
  JobRegistration r;
  r.job_id = 1;
  r.user = "bob";
  r.batch_host = "n1";
  const std::string line = encode(r);
  EXPECT_NE(line.find("\"curve\":[]"), std::string::npos) << line;
  EXPECT_NE(line.find("\"up_cost_s\":null"), std::string::npos) << line;
  const auto back = std::get<JobRegistration>(decode(line));
  EXPECT_FALSE(back.curve.has_value());
  EXPECT_FALSE(back.up_cost_s);
  EXPECT_FALSE(back.down_cost_s);
}

TEST(ProtocolTest, StatusRoundTripsAndNamesTypes) {
  const std::string line = encode(StatusRequest{});
  EXPECT_NE(line.find("\"v\":1"), std::string::npos);
  EXPECT_TRUE(std::holds_alternative<StatusRequest>(decode(line)));
  EXPECT_EQ(type_name(StatusRequest{}), "status");
  EXPECT_EQ(type_name(NodeFreed{}), "node_freed");
  EXPECT_EQ(type_name(NodeTaken{}), "node_taken");
  EXPECT_EQ(type_name(JobRegistration{}), "register");
  EXPECT_EQ(type_name(LauncherReport{}), "launcher");
}

// `gaptrain job ID`: the job id is required, within its range, and alone.
TEST(ProtocolTest, JobRequestRoundTripsAndIsCheckedAsOthers) {
  const std::string line = encode(JobRequest{123});
  EXPECT_EQ(std::get<JobRequest>(decode(line)).job_id, 123U);
  EXPECT_EQ(type_name(JobRequest{}), "job");
  EXPECT_EQ(std::get<JobRequest>(decode(R"({"v":1,"type":"job","job_id":123})")).job_id, 123U);
  EXPECT_EQ(error_field(R"({"v":1,"type":"job"})"), "job_id");
  EXPECT_EQ(error_field(R"({"v":1,"type":"job","job_id":0})"), "job_id");
  EXPECT_EQ(error_field(R"({"v":1,"type":"job","job_id":1,"user":"bob"})"), "user");
}

// `gaptrain pause|resume|drain`: one of the three, nothing else.
TEST(ProtocolTest, OperationRequestRoundTripsAndIsChecked) {
  for (const char* operation : {"pause", "resume", "drain"}) {
    EXPECT_EQ(std::get<OperationRequest>(decode(encode(OperationRequest{operation}))).operation,
              operation);
  }
  EXPECT_EQ(type_name(OperationRequest{}), "operation");
  EXPECT_EQ(error_field(R"({"v":1,"type":"operation","operation":"stop"})"), "operation");
  EXPECT_EQ(error_field(R"({"v":1,"type":"operation"})"), "operation");
  EXPECT_EQ(error_field(R"({"v":1,"type":"operation","operation":"pause","job_id":1})"), "job_id");
}

TEST(ProtocolTest, DecodesTheDocumentedExamples) {
  EXPECT_EQ(
      std::get<NodeFreed>(decode(R"({"v":1,"type":"node_freed","job_id":123,"node":"n1"})")).job_id,
      123U);
  EXPECT_FALSE(
      std::get<NodeTaken>(
          decode(R"({"v":1,"type":"node_taken","job_id":123,"node":"n1","elastic":false})"))
          .elastic);
  const auto r = std::get<JobRegistration>(decode(
      R"({"v":1,"type":"register","job_id":123,"user":"alice","batch_host":"n1","min_nodes":1,)"
      R"("max_nodes":4,"curve":[[1,100.0],[2,190.0]],"up_cost_s":18,"down_cost_s":12})"));
  EXPECT_EQ(r.curve->points().size(), 2U);
  EXPECT_EQ(r.up_cost_s, 18.0);
  EXPECT_TRUE(std::holds_alternative<StatusRequest>(decode(R"({"v":1,"type":"status"})")));
}

TEST(ProtocolTest, RejectsMalformedDocuments) {
  EXPECT_EQ(error_field("not json"), "");
  EXPECT_EQ(error_field("[1,2]"), "");
  EXPECT_EQ(error_field(R"({"v":1,"type":"status"} trailing)"), "");
  EXPECT_EQ(error_field(R"({"type":"status"})"), "v");
  EXPECT_EQ(error_field(R"({"v":2,"type":"status"})"), "v");
  EXPECT_EQ(error_field(R"({"v":"1","type":"status"})"), "v");
  EXPECT_EQ(error_field(R"({"v":1})"), "type");
  EXPECT_EQ(error_field(R"({"v":1,"type":"reboot"})"), "type");
  EXPECT_EQ(error_field(R"({"v":1,"type":"status","extra":1})"), "extra");
}

TEST(ProtocolTest, RejectsBadNodeEvents) {
  EXPECT_EQ(error_field(R"({"v":1,"type":"node_freed","node":"n1"})"), "job_id");
  EXPECT_EQ(error_field(R"({"v":1,"type":"node_freed","job_id":0,"node":"n1"})"), "job_id");
  EXPECT_EQ(error_field(R"({"v":1,"type":"node_freed","job_id":-3,"node":"n1"})"), "job_id");
  EXPECT_EQ(error_field(R"({"v":1,"type":"node_freed","job_id":4294967296,"node":"n1"})"),
            "job_id");
  EXPECT_EQ(error_field(R"({"v":1,"type":"node_freed","job_id":"5","node":"n1"})"), "job_id");
  EXPECT_EQ(error_field(R"({"v":1,"type":"node_freed","job_id":5,"node":""})"), "node");
  EXPECT_EQ(error_field(R"({"v":1,"type":"node_freed","job_id":5,"node":"n 1"})"), "node");
  EXPECT_EQ(error_field(R"({"v":1,"type":"node_freed","job_id":5,"node":"n1\n"})"), "node");
  EXPECT_EQ(error_field(R"({"v":1,"type":"node_freed","job_id":5,"node":7})"), "node");
  EXPECT_EQ(error_field(R"({"v":1,"type":"node_freed","job_id":5,"node":"n1","elastic":true})"),
            "elastic");
  EXPECT_EQ(error_field(R"({"v":1,"type":"node_taken","job_id":5,"node":"n1"})"), "elastic");
  EXPECT_EQ(error_field(R"({"v":1,"type":"node_taken","job_id":5,"node":"n1","elastic":1})"),
            "elastic");
}

// A valid registration with one key replaced by `patch` (`key` removed when patch is empty).
std::string registration_with(const std::string& key, const std::string& patch) {
  std::string out = R"({"v":1,"type":"register")";
  const std::pair<std::string, std::string> fields[] = {
      {"job_id", "9"},     {"user", "\"alice\""}, {"batch_host", "\"n1\""},
      {"min_nodes", "1"},  {"max_nodes", "4"},    {"curve", "[[1,100],[2,190]]"},
      {"up_cost_s", "18"}, {"down_cost_s", "12"}};
  for (const auto& [k, v] : fields) {
    if (k == key && patch.empty()) continue;
    out += ",\"" + k + "\":" + (k == key ? patch : v);
  }
  return out + "}";
}

TEST(ProtocolTest, RejectsBadRegistrations) {
  EXPECT_EQ(error_field(registration_with("", "")), "<no error>");
  EXPECT_EQ(error_field(registration_with("user", "")), "user");
  EXPECT_EQ(error_field(registration_with("user", "\"\"")), "user");
  EXPECT_EQ(error_field(registration_with("batch_host", "\"n1 n2\"")), "batch_host");
  EXPECT_EQ(error_field(registration_with("min_nodes", "0")), "min_nodes");
  EXPECT_EQ(error_field(registration_with("min_nodes", "1.5")), "min_nodes");
  EXPECT_EQ(error_field(registration_with("max_nodes", "0")), "max_nodes");
  EXPECT_EQ(error_field(registration_with("curve", "")), "curve");
  EXPECT_EQ(error_field(registration_with("curve", "{}")), "curve");
  EXPECT_EQ(error_field(registration_with("curve", "[[1]]")), "curve[0]");
  EXPECT_EQ(error_field(registration_with("curve", "[[0,5]]")), "curve[0]");
  EXPECT_EQ(error_field(registration_with("curve", "[[2,5],[2,6]]")), "curve[1]");
  EXPECT_EQ(error_field(registration_with("curve", "[[1,0]]")), "curve[0]");
  EXPECT_EQ(error_field(registration_with("curve", "[[1,\"x\"]]")), "curve[0][1]");
  EXPECT_EQ(error_field(registration_with("up_cost_s", "-1")), "up_cost_s");
  EXPECT_EQ(error_field(registration_with("down_cost_s", "\"12\"")), "down_cost_s");
  EXPECT_EQ(error_field(registration_with("down_cost_s", "")), "down_cost_s");
  EXPECT_EQ(error_field(registration_with("up_cost_s", "null")), "<no error>");
  EXPECT_EQ(error_field(registration_with("curve", "[]")), "<no error>");
  // Sizes and numbers beyond any cluster or job (gaptrain/bounds.hpp).
  EXPECT_EQ(error_field(registration_with("max_nodes", "2000000000")), "max_nodes");
  EXPECT_EQ(error_field(registration_with("max_nodes", "100000")), "<no error>");
  EXPECT_EQ(error_field(registration_with("curve", "[[2000000000,5]]")), "curve[0]");
  EXPECT_EQ(error_field(registration_with("curve", "[[1,1e300]]")), "curve[0]");
  // More than a node can do (bounds::kMaxSamplesPerNodePerS): a probe registered 1e15.
  EXPECT_EQ(error_field(registration_with("curve", "[[2,1e15]]")), "curve[0][1]");
  EXPECT_EQ(error_field(registration_with("curve", "[[2,2e9]]")), "<no error>");
  EXPECT_EQ(error_field(registration_with("up_cost_s", "1e300")), "up_cost_s");
  // The notice the job asks for (optional): seconds, up to a day.
  const auto with_notice = [](const std::string& value) {
    std::string line = registration_with("", "");
    return line.insert(line.size() - 1, R"(,"notice_s":)" + value);
  };
  EXPECT_EQ(error_field(with_notice("30")), "<no error>");
  EXPECT_EQ(error_field(with_notice("null")), "<no error>");
  EXPECT_EQ(error_field(with_notice("0")), "<no error>");
  EXPECT_EQ(error_field(with_notice("86400")), "<no error>");
  EXPECT_EQ(error_field(with_notice("86401")), "notice_s");
  EXPECT_EQ(error_field(with_notice("-1")), "notice_s");
  EXPECT_EQ(error_field(with_notice("\"30\"")), "notice_s");
}

TEST(ProtocolTest, ErrorsAreOneLine) {
  try {
    decode("{\n\"v\":1,\n");
    FAIL() << "accepted broken JSON";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
  }
}

TEST(ProtocolTest, LauncherReportRoundTrips) {
  LauncherReport r;
  r.job_id = 42;
  r.running = {"n1", "n2"};
  r.drained = {"n3"};
  r.samples_done = 51200.5;
  const LauncherReport back = round_trip(r);
  EXPECT_EQ(back.job_id, 42U);
  EXPECT_EQ(back.running, r.running);
  EXPECT_EQ(back.drained, r.drained);
  EXPECT_EQ(back.samples_done, 51200.5);
  EXPECT_FALSE(back.progress_time);
  EXPECT_FALSE(back.world_size);
  r.progress_time = 1764300000.25;
  r.world_size = 2;
  const LauncherReport timed = round_trip(r);
  EXPECT_EQ(timed.progress_time, 1764300000.25);
  EXPECT_EQ(timed.world_size, 2);

  LauncherReport bare;
  bare.job_id = 7;
  const std::string line = encode(bare);
  EXPECT_NE(line.find("\"samples_done\":null"), std::string::npos) << line;
  EXPECT_NE(line.find("\"type\":\"launcher\""), std::string::npos) << line;
  const auto empty = std::get<LauncherReport>(decode(line));
  EXPECT_TRUE(empty.running.empty());
  EXPECT_FALSE(empty.samples_done);
}

// A valid launcher report with one key replaced by `patch` (`key` removed when patch is empty).
std::string launcher_with(const std::string& key, const std::string& patch) {
  std::string out = R"({"v":1,"type":"launcher")";
  const std::pair<std::string, std::string> fields[] = {
      {"job_id", "9"}, {"running", R"(["n1","n2"])"}, {"drained", "[]"}, {"samples_done", "100"}};
  for (const auto& [k, v] : fields) {
    if (k == key && patch.empty()) continue;
    out += ",\"" + k + "\":" + (k == key ? patch : v);
  }
  return out + "}";
}

TEST(ProtocolTest, RejectsBadLauncherReports) {
  EXPECT_EQ(error_field(launcher_with("", "")), "<no error>");
  EXPECT_EQ(error_field(launcher_with("samples_done", "null")), "<no error>");
  EXPECT_EQ(error_field(launcher_with("samples_done", "0")), "<no error>");
  EXPECT_EQ(error_field(launcher_with("job_id", "0")), "job_id");
  EXPECT_EQ(error_field(launcher_with("running", "")), "running");
  EXPECT_EQ(error_field(launcher_with("running", R"("n1")")), "running");
  EXPECT_EQ(error_field(launcher_with("running", R"(["n1",""])")), "running[1]");
  EXPECT_EQ(error_field(launcher_with("running", R"(["n1 n2"])")), "running[0]");
  EXPECT_EQ(error_field(launcher_with("running", R"(["n1","n1"])")), "running[1]");
  EXPECT_EQ(error_field(launcher_with("drained", "[3]")), "drained[0]");
  EXPECT_EQ(error_field(launcher_with("drained", "")), "drained");
  EXPECT_EQ(error_field(launcher_with("samples_done", "-1")), "samples_done");
  EXPECT_EQ(error_field(launcher_with("samples_done", R"("5")")), "samples_done");
  EXPECT_EQ(error_field(launcher_with("samples_done", "")), "samples_done");
  EXPECT_EQ(error_field(R"({"v":1,"type":"launcher","job_id":9,"running":[],"drained":[],)"
                        R"("samples_done":null,"nodes":[]})"),
            "nodes");
  const std::string base = launcher_with("", "");
  const auto with = [&](const std::string& extra) {
    return base.substr(0, base.size() - 1) + "," + extra + "}";
  };
  EXPECT_EQ(error_field(with(R"("progress_time":1764300000.5,"world_size":3)")), "<no error>");
  EXPECT_EQ(error_field(with(R"("progress_time":null,"world_size":null)")), "<no error>");
  EXPECT_EQ(error_field(with(R"("progress_time":-1)")), "progress_time");
  EXPECT_EQ(error_field(with(R"("progress_time":1e300)")), "progress_time");
  EXPECT_EQ(error_field(with(R"("progress_time":"now")")), "progress_time");
  EXPECT_EQ(error_field(with(R"("world_size":0)")), "world_size");
  EXPECT_EQ(error_field(with(R"("world_size":2.5)")), "world_size");
}

TEST(ProtocolTest, RegistrationCarriesTheBatchRangeAndNoiseScale) {
  JobRegistration r;
  r.job_id = 5;
  r.user = "alice";
  r.batch_host = "n1";
  const std::string bare = encode(r);
  EXPECT_EQ(bare.find("batch\""), std::string::npos) << "left out when not declared: " << bare;
  EXPECT_EQ(bare.find("noise_scale"), std::string::npos) << bare;
  EXPECT_FALSE(round_trip(r).batch);
  EXPECT_FALSE(round_trip(r).noise_scale);
  r.batch = BatchRange{128, 4096, 256};
  r.noise_scale = 900.5;
  const JobRegistration back = round_trip(r);
  ASSERT_TRUE(back.batch);
  EXPECT_EQ(back.batch->tuned, 128);
  EXPECT_EQ(back.batch->max, 4096);
  EXPECT_EQ(back.batch->max_per_node, 256);
  EXPECT_EQ(back.noise_scale, 900.5);
  EXPECT_EQ(back, r);
  // The documented form, max_per_node left out (0: M0 over the fewest nodes).
  const std::string line = registration_with("", "");
  const auto documented = std::get<JobRegistration>(decode(
      line.substr(0, line.size() - 1) + R"(,"batch":{"tuned":64,"max":1024},"noise_scale":null})"));
  ASSERT_TRUE(documented.batch);
  EXPECT_EQ(documented.batch->max_per_node, 0);
  EXPECT_FALSE(documented.noise_scale);
}

TEST(ProtocolTest, RejectsBadBatchRangesAndNoiseScales) {
  const auto with = [](const std::string& key, const std::string& value) {
    std::string line = registration_with("", "");
    return line.insert(line.size() - 1, ",\"" + key + "\":" + value);
  };
  EXPECT_EQ(error_field(with("batch", R"({"tuned":1,"max":1,"max_per_node":1})")), "<no error>");
  EXPECT_EQ(error_field(with("batch", R"({"tuned":0,"max":8})")), "batch");
  EXPECT_EQ(error_field(with("batch", R"({"tuned":16,"max":8})")), "batch");
  EXPECT_EQ(error_field(with("batch", R"({"tuned":16,"max":2000000000})")), "batch");
  EXPECT_EQ(error_field(with("batch", R"({"tuned":16,"max":32,"max_per_node":-1})")), "batch");
  EXPECT_EQ(error_field(with("batch", R"({"tuned":16})")), "max");
  EXPECT_EQ(error_field(with("batch", R"({"tuned":16.5,"max":32})")), "batch.tuned");
  EXPECT_EQ(error_field(with("batch", R"({"tuned":16,"max":32,"min":1})")), "batch.min");
  EXPECT_EQ(error_field(with("batch", "[16,32]")), "batch");
  EXPECT_EQ(error_field(with("noise_scale", "0")), "<no error>");
  EXPECT_EQ(error_field(with("noise_scale", "1e15")), "<no error>");
  EXPECT_EQ(error_field(with("noise_scale", "-1")), "noise_scale");
  EXPECT_EQ(error_field(with("noise_scale", "1e16")), "noise_scale");
  EXPECT_EQ(error_field(with("noise_scale", "\"900\"")), "noise_scale");
}

// Job 5 of alice's, batch host n1, on MIN to MAX nodes: the registration the tests below extend.
JobRegistration alices_registration(int min_nodes, int max_nodes) {
  JobRegistration r;
  r.job_id = 5;
  r.user = "alice";
  r.batch_host = "n1";
  r.min_nodes = min_nodes;
  r.max_nodes = max_nodes;
  return r;
}

TEST(ProtocolTest, RegistrationCarriesTheAllowedSizes) {
  JobRegistration r = alices_registration(2, 8);
  EXPECT_EQ(encode(r).find("allowed_sizes"), std::string::npos) << "left out when every count is";
  r.allowed_sizes = {2, 4, 8};
  EXPECT_EQ(round_trip(r), r);
}

TEST(ProtocolTest, RejectsAllowedSizesOutsideTheRangeOrOutOfOrder) {
  // registration_with's job runs on 1 to 4 nodes.
  const auto with = [](const std::string& sizes) {
    std::string line = registration_with("", "");
    return line.insert(line.size() - 1, ",\"allowed_sizes\":" + sizes);
  };
  EXPECT_EQ(error_field(with("[1,2,4]")), "<no error>");
  EXPECT_EQ(error_field(with("[1,4,2]")), "allowed_sizes");
  EXPECT_EQ(error_field(with("[1,2,2,4]")), "allowed_sizes");
  EXPECT_EQ(error_field(with("[2,4]")), "allowed_sizes");    // not from min_nodes
  EXPECT_EQ(error_field(with("[1,2,8]")), "allowed_sizes");  // beyond max_nodes
  EXPECT_EQ(error_field(with("[1,2.5,4]")), "allowed_sizes[1]");
  EXPECT_EQ(error_field(with("\"1,2,4\"")), "allowed_sizes");
}

// Node types: a curve per type, or a type whose curve is learned there.
TEST(ProtocolTest, RegistrationCarriesACurvePerNodeType) {
  JobRegistration r = alices_registration(1, 4);
  EXPECT_EQ(encode(r).find("curves"), std::string::npos) << "left out when it runs on every type";
  r.curves["a100"] = ScalingCurve({{1, 200.0}, {4, 760.0}});
  r.curves["v100"] = std::nullopt;  // learned on v100
  EXPECT_EQ(round_trip(r), r);
}

TEST(ProtocolTest, RegistrationSaysAJobMayMixNodeTypes) {
  JobRegistration r = alices_registration(1, 1);
  EXPECT_EQ(encode(r).find("mix_types"), std::string::npos) << "left out when it does not";
  r.mix_types = true;
  r.curve = ScalingCurve({{1, 100.0}, {4, 380.0}});
  EXPECT_EQ(round_trip(r), r);
  const auto with = [](const std::string& curve, const std::string& extra) {
    std::string line = registration_with("curve", curve);
    return line.insert(line.size() - 1, extra);
  };
  EXPECT_EQ(error_field(with("[]", R"(,"mix_types":true)")), "<no error>");
  EXPECT_EQ(error_field(with("[]", R"(,"mix_types":"yes")")), "mix_types");
  EXPECT_EQ(error_field(with("[]", R"(,"curves":{"a100":[[1,100]]},"mix_types":true)")),
            "mix_types");
}

TEST(ProtocolTest, RejectsCurvesWithACurveOrABadType) {
  const auto with = [](const std::string& curve, const std::string& curves) {
    std::string line = registration_with("curve", curve.empty() ? "[]" : curve);
    return line.insert(line.size() - 1, ",\"curves\":" + curves);
  };
  EXPECT_EQ(error_field(with("", R"({"a100":[[1,100]],"v100":[]})")), "<no error>");
  EXPECT_EQ(error_field(with("[[1,100]]", R"({"a100":[[1,100]]})")), "curves");
  EXPECT_EQ(error_field(with("", "{}")), "curves");
  EXPECT_EQ(error_field(with("", "[[1,100]]")), "curves");
  EXPECT_EQ(error_field(with("", R"({"a 100":[[1,100]]})")), "curves[\"a 100\"]");
  EXPECT_EQ(error_field(with("", R"({"a100":[[1,-5]]})")), "curves[\"a100\"].curve[0]");
  EXPECT_EQ(error_field(with("", R"({"a100":[[1,1e12]]})")), "curves[\"a100\"][0][1]");
}

TEST(ProtocolTest, LauncherReportCarriesGradientStatistics) {
  LauncherReport r;
  r.job_id = 42;
  r.samples_done = 100.0;
  EXPECT_EQ(encode(r).find("grad_"), std::string::npos) << "left out when the training has none";
  EXPECT_FALSE(round_trip(r).grad_sqr);
  EXPECT_FALSE(round_trip(r).grad_var);
  r.grad_sqr = 0.125;
  r.grad_var = 3.5e-3;
  const LauncherReport back = round_trip(r);
  EXPECT_EQ(back.grad_sqr, 0.125);
  EXPECT_EQ(back.grad_var, 3.5e-3);
  const auto with = [](const std::string& key, const std::string& value) {
    std::string line = launcher_with("", "");
    return line.insert(line.size() - 1, ",\"" + key + "\":" + value);
  };
  EXPECT_EQ(error_field(with("grad_sqr", "0")), "<no error>");
  EXPECT_EQ(error_field(with("grad_var", "null")), "<no error>");
  EXPECT_EQ(error_field(with("grad_sqr", "-0.5")), "grad_sqr");
  EXPECT_EQ(error_field(with("grad_var", "\"1\"")), "grad_var");
}

// The field an InputError names for a launch reply, or "<no error>".
std::string reply_error_field(std::string_view json) {
  try {
    decode_launch_reply(json);
  } catch (const InputError& e) {
    return e.field();
  }
  return "<no error>";
}

TEST(ProtocolTest, LaunchReplyRoundTrips) {
  LaunchInstruction three;
  three.nodes = {"n1", "n2", "n3"};
  three.drain = {"n3"};
  three.allocations = {{"n2", 41}, {"n3", 42}};
  const std::string line = encode_reply(three);
  EXPECT_EQ(line, R"({"launch":{"allocations":{"n2":41,"n3":42},"drain":["n3"],)"
                  R"("nodes":["n1","n2","n3"]},"ok":true})");
  const LaunchInstruction back = decode_launch_reply(line);
  EXPECT_EQ(back.nodes, (std::vector<std::string>{"n1", "n2", "n3"}));
  EXPECT_EQ(back.drain, (std::vector<std::string>{"n3"}));
  EXPECT_EQ(back.allocations, (std::map<std::string, std::uint32_t>{{"n2", 41}, {"n3", 42}}));
  const LaunchInstruction documented =
      decode_launch_reply(R"({"ok":true,"launch":{"nodes":["n1","n2"],"drain":[]}})");
  EXPECT_EQ(documented.nodes.size(), 2U);
  EXPECT_TRUE(documented.drain.empty());
  EXPECT_TRUE(documented.notice.empty());

  LaunchInstruction noticed;
  noticed.nodes = {"n1", "n2"};
  noticed.notice = {{"n2", 1764300060.5}};
  EXPECT_EQ(decode_launch_reply(encode_reply(noticed)).notice, noticed.notice);
  EXPECT_FALSE(decode_launch_reply(encode_reply(noticed)).batch);
  EXPECT_FALSE(decode_launch_reply(encode_reply(noticed)).home);

  LaunchInstruction paused_at_home;  // no node: the launcher waits on its home node
  paused_at_home.home = true;
  EXPECT_EQ(encode_reply(paused_at_home), R"({"launch":{"allocations":{},"drain":[],"home":true,)"
                                          R"("nodes":[]},"ok":true})");
  EXPECT_TRUE(decode_launch_reply(encode_reply(paused_at_home)).home);
  EXPECT_THROW(decode_launch_reply(R"({"ok":true,"launch":{"nodes":[],"drain":[],"home":1}})"),
               InputError);
}

TEST(ProtocolTest, LaunchReplyCarriesTheBatchToTrainAt) {
  LaunchInstruction grown;
  grown.nodes = {"n1", "n2", "n3"};
  grown.batch = InstructedBatch{128, 1536, 256, 2, 2.75};
  const std::string line = encode_reply(grown);
  EXPECT_NE(
      line.find(
          R"("batch":{"accumulation":2,"global":1536,"lr_gain":2.75,"per_node":256,"tuned":128})"),
      std::string::npos)
      << line;
  EXPECT_EQ(decode_launch_reply(line).batch, grown.batch);
  const auto with_batch = [](const std::string& batch) {
    return R"({"ok":true,"launch":{"nodes":["n1","n2"],"drain":[],"batch":)" + batch + "}}";
  };
  EXPECT_EQ(reply_error_field(with_batch(
                R"({"tuned":128,"global":512,"per_node":128,"accumulation":2,"lr_gain":1.5})")),
            "<no error>");
  EXPECT_EQ(reply_error_field(with_batch(
                R"({"tuned":128,"global":500,"per_node":128,"accumulation":2,"lr_gain":1.5})")),
            "launch.batch.global");
  EXPECT_EQ(reply_error_field(with_batch(
                R"({"tuned":128,"global":512,"per_node":0,"accumulation":2,"lr_gain":1.5})")),
            "launch.batch.per_node");
  EXPECT_EQ(reply_error_field(with_batch(
                R"({"tuned":128,"global":512,"per_node":128,"accumulation":0,"lr_gain":1.5})")),
            "launch.batch.accumulation");
  EXPECT_EQ(reply_error_field(with_batch(
                R"({"tuned":128,"global":512,"per_node":128,"accumulation":2,"lr_gain":0})")),
            "launch.batch.lr_gain");
  EXPECT_EQ(reply_error_field(
                with_batch(R"({"tuned":128,"global":512,"per_node":128,"accumulation":2})")),
            "lr_gain");
  EXPECT_EQ(reply_error_field(with_batch(R"({"tuned":0,"global":512,"per_node":128,)"
                                         R"("accumulation":2,"lr_gain":1.5})")),
            "launch.batch.tuned");
  EXPECT_EQ(reply_error_field(with_batch(R"({"global":512,"per_node":128,"accumulation":2,)"
                                         R"("lr_gain":1.5})")),
            "tuned");
  EXPECT_EQ(reply_error_field(with_batch("512")), "launch.batch");
}

TEST(ProtocolTest, LaunchReplyRefusalCarriesTheDaemonsText) {
  try {
    decode_launch_reply(R"({"ok":false,"error":"job 5 is not registered with gaptrain"})");
    FAIL() << "a refusal decoded";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "error");
    EXPECT_NE(std::string(e.what()).find("job 5 is not registered"), std::string::npos) << e.what();
  }
  EXPECT_EQ(reply_error_field(R"({"ok":false})"), "error");
}

TEST(ProtocolTest, RejectsBadLaunchReplies) {
  EXPECT_EQ(reply_error_field("not json"), "");
  EXPECT_EQ(reply_error_field(R"({"ok":true,"launch":{"nodes":["n1"],"drain":[],)"
                              R"("allocations":{"n2":5}}})"),
            "launch.allocations.n2");
  EXPECT_EQ(reply_error_field(R"({"ok":true,"launch":{"nodes":["n1"],"drain":[],)"
                              R"("allocations":{"n1":0}}})"),
            "launch.allocations.n1");
  EXPECT_EQ(reply_error_field(R"({"ok":true,"launch":{"nodes":["n1"],"drain":[],)"
                              R"("allocations":[]}})"),
            "launch.allocations");
  EXPECT_EQ(reply_error_field("[]"), "");
  EXPECT_EQ(reply_error_field(R"({"launch":{"nodes":[],"drain":[]}})"), "ok");
  EXPECT_EQ(reply_error_field(R"({"ok":1,"launch":{"nodes":[],"drain":[]}})"), "ok");
  EXPECT_EQ(reply_error_field(R"({"ok":true})"), "launch");
  EXPECT_EQ(reply_error_field(R"({"ok":true,"status":{}})"), "status");
  EXPECT_EQ(reply_error_field(R"({"ok":true,"launch":[]})"), "launch");
  EXPECT_EQ(reply_error_field(R"({"ok":true,"launch":{"nodes":["n1"]}})"), "launch.drain");
  EXPECT_EQ(reply_error_field(R"({"ok":true,"launch":{"nodes":["n1"],"drain":[],"x":1}})"),
            "launch.x");
  EXPECT_EQ(reply_error_field(R"({"ok":true,"launch":{"nodes":["n 1"],"drain":[]}})"),
            "launch.nodes[0]");
  EXPECT_EQ(reply_error_field(R"({"ok":true,"launch":{"nodes":["n1","n1"],"drain":[]}})"),
            "launch.nodes[1]");
  EXPECT_EQ(reply_error_field(R"({"ok":true,"launch":{"nodes":["n1"],"drain":["n2"]}})"),
            "launch.drain[0]");
  EXPECT_EQ(reply_error_field(R"({"ok":true,"launch":{"nodes":["n1"],"drain":[],)"
                              R"("notice":{"n2":5}}})"),
            "launch.notice.n2");
  EXPECT_EQ(reply_error_field(R"({"ok":true,"launch":{"nodes":["n1"],"drain":[],)"
                              R"("notice":{"n1":"soon"}}})"),
            "launch.notice.n1");
  EXPECT_EQ(reply_error_field(R"({"ok":true,"launch":{"nodes":["n1"],"drain":[],)"
                              R"("notice":[]}})"),
            "launch.notice");
}

}  // namespace
}  // namespace gaptrain::protocol::protocol_test
