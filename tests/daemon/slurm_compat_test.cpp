#include "slurm_compat.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <string>

#include "core/slurm_release.hpp"

namespace gaptrain::daemon::slurm_compat_test {
namespace {

using core::major_minor;

// ESLURM_INVALID_JOB_ID, the same in every release (slurm_errno.h is not included here: it is
// not warning-clean).
constexpr int kSlurmInvalidJobId = 2017;

// The adapter reads the error through the release's own mechanism and words it with Slurm's
// own table, whichever release this was built against.
TEST(SlurmCompat, ErrorsAreWordedBySlurm) {
  const std::string text = slurm_compat::error_text(kSlurmInvalidJobId);
  EXPECT_NE(text.find("(" + std::to_string(kSlurmInvalidJobId) + ")"), std::string::npos) << text;
  EXPECT_NE(text.find("job id"), std::string::npos) << text;
}

TEST(SlurmCompat, TheLastErrorIsTheOneLibslurmSetForThisThread) {
  errno = kSlurmInvalidJobId;  // what a libslurm call sets when it fails, in every release
  EXPECT_EQ(slurm_compat::last_error(), kSlurmInvalidJobId);
  EXPECT_EQ(slurm_compat::last_error_text(), slurm_compat::error_text(kSlurmInvalidJobId));
}

TEST(SlurmCompat, TheBuiltReleaseIsMajorMinorMicro) {
  const std::string release = slurm_compat::built_release();
  EXPECT_EQ(std::count(release.begin(), release.end(), '.'), 2) << release;
  EXPECT_EQ(major_minor(release).size(), 5U) << release;
}

}  // namespace
}  // namespace gaptrain::daemon::slurm_compat_test
