#include "core/config.hpp"

#include <gtest/gtest.h>

#include <string>

#include "core/cycle.hpp"
#include "gaptrain/input_error.hpp"

namespace gaptrain::core::config_test {
namespace {

// The error parse_config throws for `json`; fails the test when it accepts it.
InputError error_for(const std::string& json) {
  try {
    parse_config(json);
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "accepted: " << json;
  return InputError("", "accepted");
}

TEST(Config, EmptyObjectGivesTheDefaults) {
  const DaemonConfig config = parse_config("{}");
  EXPECT_EQ(config.listen.host, "127.0.0.1");
  EXPECT_EQ(config.listen.port, 6830);
  EXPECT_EQ(config.munge_socket, "");
  EXPECT_DOUBLE_EQ(config.poll_interval_s, 2.0);
  EXPECT_EQ(config.elastic_partitions.joined(), "elastic");
  EXPECT_EQ(config.log_level, LogLevel::info);
}

// The QOS satellites run in: the job's own by default, or one Slurm may preempt.
TEST(Config, SatelliteQos) {
  EXPECT_EQ(parse_config("{}").satellite_qos, "");
  EXPECT_EQ(parse_config(R"({"satellite_qos": "satellite"})").satellite_qos, "satellite");
  EXPECT_EQ(error_for(R"({"satellite_qos": 3})").field(), "satellite_qos");
  EXPECT_EQ(resizer_settings(parse_config(R"({"satellite_qos": "sat"})")).satellite_qos, "sat");
  EXPECT_EQ(parse_config("{}").satellite_partition, "");
  EXPECT_EQ(error_for(R"({"satellite_partition": []})").field(), "satellite_partition");
  EXPECT_EQ(resizer_settings(parse_config(R"({"satellite_partition": "sat"})")).satellite_partition,
            "sat");
}

TEST(Config, ResizingKeys) {
  const DaemonConfig defaults = parse_config("{}");
  EXPECT_TRUE(defaults.resize);
  EXPECT_DOUBLE_EQ(defaults.horizon_s, 120.0);
  EXPECT_DOUBLE_EQ(defaults.lease_s, 300.0);
  EXPECT_DOUBLE_EQ(defaults.drain_grace_s, 10.0);
  EXPECT_DOUBLE_EQ(defaults.reclaim_grace_s, 2.0);
  EXPECT_DOUBLE_EQ(defaults.watch_interval_s, 0.5);
  const DaemonConfig set = parse_config(
      R"({"resize": false, "horizon_s": 60, "lease_s": 120, "drain_grace_s": 0,
          "reclaim_grace_s": 0.5, "watch_interval_s": 0.25})");
  EXPECT_DOUBLE_EQ(set.watch_interval_s, 0.25);
  EXPECT_FALSE(set.resize);
  EXPECT_DOUBLE_EQ(set.horizon_s, 60.0);
  EXPECT_DOUBLE_EQ(set.lease_s, 120.0);
  EXPECT_DOUBLE_EQ(set.drain_grace_s, 0.0);
  EXPECT_DOUBLE_EQ(set.reclaim_grace_s, 0.5);
  // A lease is a Slurm time limit: at least a minute.
  const InputError short_lease = error_for(R"({"lease_s": 30})");
  EXPECT_EQ(short_lease.field(), "lease_s");
  EXPECT_NE(std::string(short_lease.what()).find("default 300.0"), std::string::npos)
      << short_lease.what();
  EXPECT_EQ(error_for(R"({"resize": "yes"})").field(), "resize");
  EXPECT_EQ(error_for(R"({"reclaim_grace_s": 61})").field(), "reclaim_grace_s");
  EXPECT_EQ(error_for(R"({"watch_interval_s": 0})").field(), "watch_interval_s");
  // The cap on a job's notice: 0 gives none, at most a day.
  EXPECT_DOUBLE_EQ(defaults.max_notice_s, 600.0);
  EXPECT_DOUBLE_EQ(parse_config(R"({"max_notice_s": 0})").max_notice_s, 0.0);
  EXPECT_EQ(error_for(R"({"max_notice_s": 86401})").field(), "max_notice_s");
  EXPECT_EQ(error_for(R"({"max_notice_s": -1})").field(), "max_notice_s");
}

TEST(Config, NestingTooDeepForTheParserIsABadFileNotACrash) {
  // jsoncpp throws its own exception past 1000 levels (found by tests/fuzz).
  const std::string deep = std::string(5000, '[') + std::string(5000, ']');
  EXPECT_THROW(parse_config(deep), InputError);
}

TEST(Config, MetricsAreServedOnlyWhenAskedFor) {
  EXPECT_FALSE(parse_config("{}").metrics_listen.has_value());
  EXPECT_FALSE(parse_config(R"({"metrics_listen": ""})").metrics_listen.has_value());
  const auto at = parse_config(R"({"metrics_listen": "127.0.0.1:9820"})").metrics_listen;
  ASSERT_TRUE(at.has_value());
  EXPECT_EQ(at->port, 9820);
  const InputError bad = error_for(R"({"metrics_listen": "localhost:9820"})");
  EXPECT_EQ(bad.field(), "metrics_listen");
  EXPECT_EQ(std::string(bad.what()).find("metrics_listen: listen"), std::string::npos)
      << bad.what();
}

TEST(Config, TheStateFileIsAnAbsolutePathOrNone) {
  EXPECT_EQ(parse_config("{}").state_file, "/var/lib/gaptrain/state.json");
  EXPECT_EQ(parse_config(R"({"state_file": ""})").state_file, "");
  EXPECT_EQ(parse_config(R"({"state_file": "/srv/g/state.json"})").state_file, "/srv/g/state.json");
  EXPECT_EQ(error_for(R"({"state_file": "state.json"})").field(), "state_file");
  EXPECT_EQ(error_for(R"({"state_file": 3})").field(), "state_file");
}

TEST(Config, TheIdleReserveIsAWholeNumberOfNodes) {
  EXPECT_EQ(parse_config("{}").idle_reserve_nodes, 0);
  EXPECT_EQ(parse_config(R"({"idle_reserve_nodes": 2})").idle_reserve_nodes, 2);
  for (const char* bad : {R"({"idle_reserve_nodes": 1.5})", R"({"idle_reserve_nodes": -1})",
                          R"({"idle_reserve_nodes": "1"})"}) {
    const InputError error = error_for(bad);
    EXPECT_EQ(error.field(), "idle_reserve_nodes") << bad;
    EXPECT_NE(std::string(error.what()).find("whole number"), std::string::npos) << error.what();
  }
}

TEST(Config, TheFairExponentIsANumberFromMinusFourToOne) {
  EXPECT_EQ(parse_config("{}").fair_p, 0.0);
  EXPECT_EQ(parse_config(R"({"objective": "fair", "fair_p": -1})").fair_p, -1.0);
  EXPECT_EQ(parse_config(R"({"objective": "fair", "fair_p": 0.5})").fair_p, 0.5);
  // Under another objective it would change nothing: refused, not ignored.
  EXPECT_EQ(error_for(R"({"fair_p": -1})").field(), "fair_p");
  EXPECT_EQ(parse_config(R"({"objective": "speedup", "fair_p": 0})").fair_p, 0.0);
  for (const char* bad : {R"({"fair_p": 1.5})", R"({"fair_p": -5})", R"({"fair_p": "-1"})"}) {
    const InputError error = error_for(bad);
    EXPECT_EQ(error.field(), "fair_p") << bad;
    EXPECT_NE(std::string(error.what()).find("a number from -4 to 1"), std::string::npos)
        << error.what();
  }
}

TEST(Config, ConnectionCapsAreWholeAndThePerPeerOneFitsTheTotal) {
  const DaemonConfig defaults = parse_config("{}");
  EXPECT_EQ(defaults.max_connections, 512);
  EXPECT_EQ(defaults.max_connections_per_peer, 64);
  const DaemonConfig set =
      parse_config(R"({"max_connections": 100, "max_connections_per_peer": 100})");
  EXPECT_EQ(set.max_connections, 100);
  EXPECT_EQ(set.max_connections_per_peer, 100);
  for (const char* bad : {R"({"max_connections": 0})", R"({"max_connections": 1e9})",
                          R"({"max_connections": 2.5})", R"({"max_connections": "64"})"}) {
    EXPECT_EQ(error_for(bad).field(), "max_connections") << bad;
  }
  const InputError over = error_for(R"({"max_connections": 10, "max_connections_per_peer": 20})");
  EXPECT_EQ(over.field(), "max_connections_per_peer");
  EXPECT_NE(std::string(over.what()).find("more than max_connections"), std::string::npos)
      << over.what();
  EXPECT_EQ(error_for(R"({"max_connections_per_peer": 0})").field(), "max_connections_per_peer");
}

TEST(Config, ReadsWhatTheLocalClusterWrites) {
  const DaemonConfig config = parse_config(
      R"({"listen": "127.0.0.1:17001", "munge_socket": "/tmp/x/munge.sock",
          "poll_interval_s": 1.0, "elastic_partition": "elastic"})");
  EXPECT_EQ(config.listen.port, 17001);
  EXPECT_EQ(config.munge_socket, "/tmp/x/munge.sock");
  EXPECT_DOUBLE_EQ(config.poll_interval_s, 1.0);
}

TEST(Config, ListenTakesIpv6InBrackets) {
  const ListenAddress address = parse_listen("[::1]:7000");
  EXPECT_EQ(address.host, "::1");
  EXPECT_EQ(address.port, 7000);
  EXPECT_EQ(to_string(address), "[::1]:7000");
}

TEST(Config, UnknownKeyIsNamedWithTheKnownOnes) {
  const InputError e = error_for(R"({"poll_interval": 2})");
  EXPECT_EQ(e.field(), "poll_interval");
  EXPECT_NE(std::string(e.what()).find("unknown key"), std::string::npos);
  EXPECT_NE(std::string(e.what()).find("poll_interval_s"), std::string::npos);
}

TEST(Config, BadListenIsNamed) {
  for (const char* bad : {R"({"listen": "localhost:6830"})", R"({"listen": "127.0.0.1"})",
                          R"({"listen": "127.0.0.1:0"})", R"({"listen": "127.0.0.1:70000"})",
                          R"({"listen": "127.0.0.1:68x"})", R"({"listen": 6830})",
                          // inet_pton stops at the NUL: found by tests/fuzz
                          R"({"listen": "127.0.0.1\u0000junk:6830"})"}) {
    const InputError e = error_for(bad);
    EXPECT_EQ(e.field(), "listen") << bad;
  }
}

TEST(Config, NegativeOrNonNumericIntervalIsNamed) {
  for (const char* bad : {R"({"poll_interval_s": -1})", R"({"poll_interval_s": 0})",
                          R"({"poll_interval_s": "2"})", R"({"poll_interval_s": 1e9})"}) {
    const InputError e = error_for(bad);
    EXPECT_EQ(e.field(), "poll_interval_s") << bad;
    EXPECT_NE(std::string(e.what()).find("default 2.0"), std::string::npos) << e.what();
  }
}

TEST(Config, BadLogLevelPartitionAndSocketAreNamed) {
  EXPECT_EQ(error_for(R"({"log_level": "verbose"})").field(), "log_level");
  EXPECT_EQ(error_for(R"({"elastic_partition": ""})").field(), "elastic_partition");
  EXPECT_EQ(error_for(R"({"munge_socket": null})").field(), "munge_socket");
}

TEST(Config, SeveralElasticPartitionsAreListedWithCommas) {
  const DaemonConfig config = parse_config(R"({"elastic_partition": "gpu,cpu"})");
  EXPECT_EQ(config.elastic_partitions.names(), (std::vector<std::string>{"gpu", "cpu"}));
  EXPECT_EQ(config.elastic_partitions.first(), "gpu");
  EXPECT_TRUE(config.elastic_partitions.contains("cpu"));
  EXPECT_FALSE(config.elastic_partitions.contains("gpu,cpu"));
  EXPECT_EQ(config.elastic_partitions.joined(), "gpu,cpu");
  for (const char* bad :
       {R"({"elastic_partition": "gpu,"})", R"({"elastic_partition": ",gpu"})",
        R"({"elastic_partition": "gpu,,cpu"})", R"({"elastic_partition": "gpu, cpu"})",
        R"({"elastic_partition": "gpu,cpu,gpu"})"}) {
    EXPECT_EQ(error_for(bad).field(), "elastic_partition") << bad;
  }
  EXPECT_NE(std::string(error_for(R"({"elastic_partition": "gpu,gpu"})").what()).find("twice"),
            std::string::npos);
}

TEST(Config, NotAnObjectOrNotJson) {
  EXPECT_EQ(error_for("[]").field(), "");
  EXPECT_EQ(error_for("{\"listen\": ").field(), "");
  // Strict mode: a duplicated key is an error, not "the last one wins".
  EXPECT_EQ(error_for(R"({"log_level": "info", "log_level": "debug"})").field(), "");
}

}  // namespace
}  // namespace gaptrain::core::config_test
