#include "gaptrain/munge_envelope.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include "munge_fixture.hpp"

namespace gaptrain::munge::munge_envelope_test {
namespace {

class MungeEnvelopeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    socket_ = test::fixture_munge_socket();
    if (socket_.empty()) GTEST_SKIP() << "no private munged (needs root and munge installed)";
  }
  std::string socket_;
};

TEST_F(MungeEnvelopeTest, SealThenOpenGivesPayloadAndSender) {
  const std::string payload = R"({"v":1,"type":"status"})";
  const std::string credential = seal(payload, socket_);
  EXPECT_TRUE(credential.starts_with("MUNGE:")) << credential;
  const Opened opened = open(credential, socket_);
  EXPECT_EQ(opened.payload, payload);
  EXPECT_EQ(opened.uid, ::getuid());
  EXPECT_EQ(opened.gid, ::getgid());
}

TEST_F(MungeEnvelopeTest, ReplayedCredentialIsRejected) {
  const std::string credential = seal("once", socket_);
  EXPECT_EQ(open(credential, socket_).payload, "once");
  EXPECT_THROW(open(credential, socket_), MungeError);
}

TEST_F(MungeEnvelopeTest, GarbageIsRejected) {
  EXPECT_THROW(open("MUNGE:not-a-credential:", socket_), MungeError);
  EXPECT_THROW(open("", socket_), MungeError);
}

TEST_F(MungeEnvelopeTest, EmptyPayloadSurvives) {
  EXPECT_EQ(open(seal("", socket_), socket_).payload, "");
}

TEST(MungeEnvelopeNoDaemonTest, MissingSocketIsAnError) {
  try {
    seal("x", "/nonexistent/gaptrain/munge.socket");
    FAIL() << "sealed without munged";
  } catch (const MungeError& e) {
    EXPECT_TRUE(std::string(e.what()).starts_with("munge: ")) << e.what();
  }
}

}  // namespace
}  // namespace gaptrain::munge::munge_envelope_test
