// Reading an input file (simulator/input_file.cpp): plain files as they are, gzip members
// inflated, what is not a regular file or is past the limit refused before it is held.
// ZLIB_CONST makes z_stream::next_in a pointer to const, as input_file.cpp has it.
#define ZLIB_CONST
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "simulator/workload_io.hpp"
#include "workload_io_testing.hpp"

namespace gaptrain::sim::input_file_test {
namespace {

using namespace workload_io_testing;

// A scratch directory per test, removed afterwards.
class WorkloadIoReadFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("gaptrain-workload-io-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string write(const std::string& name, std::string_view bytes) const {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
    return path;
  }

  std::filesystem::path dir_;
};

// `printf 'hello\n' | gzip -n; printf 'world\n' | gzip -n`: two gzip members, as `cat a.gz b.gz`
// makes.
constexpr unsigned char kTwoMembersGz[] = {
    0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xcb, 0x48, 0xcd,
    0xc9, 0xc9, 0xe7, 0x02, 0x00, 0x20, 0x30, 0x3a, 0x36, 0x06, 0x00, 0x00, 0x00,
    0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x2b, 0xcf, 0x2f,
    0xca, 0x49, 0xe1, 0x02, 0x00, 0xa8, 0x61, 0x38, 0xdd, 0x06, 0x00, 0x00, 0x00};
const std::string_view two_members_gz(reinterpret_cast<const char*>(kTwoMembersGz),
                                      sizeof kTwoMembersGz);

TEST_F(WorkloadIoReadFile, ReadsPlainFilesAsIs) {
  const std::string content("a,b\r\n\0binary\n", 13);
  EXPECT_EQ(read_input_file(write("plain.csv", content)), content);
}

TEST_F(WorkloadIoReadFile, GunzipsEveryMemberOfAGzFile) {
  EXPECT_EQ(read_input_file(write("two.txt.gz", two_members_gz)), "hello\nworld\n");
}

TEST_F(WorkloadIoReadFile, LeavesGzipBytesAloneWithoutTheGzSuffix) {
  EXPECT_EQ(read_input_file(write("two.txt", two_members_gz)), two_members_gz);
}

TEST_F(WorkloadIoReadFile, RejectsGzFilesThatAreNotGzip) {
  const std::string path = write("plain.swf.gz", "; MaxNodes: 4\n");
  const InputError error = input_error_from([&] { read_input_file(path); });
  EXPECT_EQ(error.field(), path);
  EXPECT_THAT(error.what(), HasSubstr("not a valid gzip file"));
}

TEST_F(WorkloadIoReadFile, RejectsTruncatedGzFiles) {
  const std::string path = write("cut.txt.gz", two_members_gz.substr(0, 20));
  const InputError error = input_error_from([&] { read_input_file(path); });
  EXPECT_EQ(error.field(), path);
  EXPECT_THAT(error.what(), HasSubstr("not a valid gzip file"));
  EXPECT_THAT(error.what(), HasSubstr("truncated"));
}

TEST_F(WorkloadIoReadFile, SaysWhyAFileCannotBeRead) {
  const std::string missing = (dir_ / "missing.csv").string();
  const InputError error = input_error_from([&] { read_input_file(missing); });
  EXPECT_EQ(error.field(), missing);
  EXPECT_THAT(error.what(), HasSubstr("cannot read: No such file or directory"));

  const std::string directory = dir_.string();
  const InputError dir_error = input_error_from([&] { read_input_file(directory); });
  EXPECT_EQ(dir_error.field(), directory);
  EXPECT_THAT(dir_error.what(), HasSubstr("cannot read: it is a directory, not a regular file"));
}

// A named pipe stalled `gaptrain simulate` forever (no writer ever came), and
// /dev/zero was read up to the limit (1 GB of memory for the default 512 MiB) before the refusal.
TEST_F(WorkloadIoReadFile, RefusesWhatIsNotARegularFileWithoutReadingIt) {
  const std::string fifo = (dir_ / "events.csv").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const InputError fifo_error = input_error_from([&] { read_input_file(fifo); });
  EXPECT_EQ(fifo_error.field(), fifo);
  EXPECT_THAT(fifo_error.what(),
              HasSubstr("cannot read: it is a named pipe (FIFO), not a regular file"));

  const InputError zero_error = input_error_from([&] { read_input_file("/dev/zero", 1000); });
  EXPECT_THAT(zero_error.what(),
              HasSubstr("/dev/zero: cannot read: it is a character device, not a regular file"));
}

// `bytes` zero bytes, gzipped: each MiB compresses to about 1 KiB, the shape of a gzip bomb.
std::string gzipped_zeros(std::size_t bytes) {
  z_stream stream{};
  EXPECT_EQ(
      deflateInit2(&stream, Z_BEST_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 9, Z_DEFAULT_STRATEGY),
      Z_OK);
  const std::vector<char> zeros(std::size_t{1} << 20, '\0');
  std::string out;
  std::array<char, 1 << 16> buffer{};
  std::size_t left = bytes;
  int flush = Z_NO_FLUSH;
  while (flush != Z_FINISH) {
    const std::size_t slice = std::min(left, zeros.size());
    left -= slice;
    flush = left == 0 ? Z_FINISH : Z_NO_FLUSH;
    stream.next_in = reinterpret_cast<const Bytef*>(zeros.data());
    stream.avail_in = static_cast<uInt>(slice);
    do {
      stream.next_out = reinterpret_cast<Bytef*>(buffer.data());
      stream.avail_out = static_cast<uInt>(buffer.size());
      deflate(&stream, flush);
      out.append(buffer.data(), buffer.size() - stream.avail_out);
    } while (stream.avail_out == 0);
  }
  deflateEnd(&stream);
  return out;
}

TEST_F(WorkloadIoReadFile, RefusesAGzipBombPastTheLimit) {
  constexpr std::size_t kMiB = std::size_t{1} << 20;
  const std::string bomb = gzipped_zeros(64 * kMiB);
  ASSERT_LT(bomb.size(), 100 * 1024U);  // 64 MiB from well under 100 KiB
  const std::string path = write("bomb.csv.gz", bomb);
  const InputError error = input_error_from([&] { read_input_file(path, 4 * kMiB); });
  EXPECT_EQ(error.field(), path);
  EXPECT_THAT(error.what(), HasSubstr("decompressed, it is larger than 4 MiB, the limit on an "
                                      "input file (--max-input-mb raises it)"));
  const InputError embedded = input_error_from([&] { gunzip(bomb, "built-in.swf", kMiB); });
  EXPECT_THAT(embedded.what(), HasSubstr("built-in.swf: decompressed, it is larger than 1 MiB"));
  // Up to the limit it is read whole, to the byte.
  EXPECT_EQ(read_input_file(path, 64 * kMiB).size(), 64 * kMiB);
  EXPECT_EQ(gunzip(gzipped_zeros(kMiB), "one", kMiB), std::string(kMiB, '\0'));
}

TEST_F(WorkloadIoReadFile, RefusesAPlainFilePastTheLimit) {
  const std::string path = write("big.csv", std::string(1001, 'x'));
  const InputError error = input_error_from([&] { read_input_file(path, 1000); });
  EXPECT_EQ(error.field(), path);
  EXPECT_THAT(error.what(), HasSubstr("the file is larger than 1000 bytes"));
  EXPECT_EQ(read_input_file(path, 1001).size(), 1001U);
}

}  // namespace
}  // namespace gaptrain::sim::input_file_test
