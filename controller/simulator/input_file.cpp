// Reading an input file: a regular file only, never more than the limit held, gzip members
// inflated (a gzip bomb refused before it is held).
// ZLIB_CONST makes z_stream::next_in a pointer to const, so the input needs no const_cast.
#define ZLIB_CONST
#include <zlib.h>

#include <algorithm>
#include <array>
#include <memory>
#include <string>

#include "gaptrain/input_error.hpp"
#include "gaptrain/node_sizes.hpp"
#include "gaptrain/text_file.hpp"
#include "simulator/workload_io.hpp"

namespace gaptrain::sim {
namespace {

InputError too_large(const std::string& path, std::size_t max_bytes, const char* what) {
  return InputError(path, std::string(what) + " larger than " + size_text(max_bytes) +
                              ", the limit on an input file (--max-input-mb raises it)");
}

// The file's bytes (text_file.hpp: regular files only, never more than `max_bytes` held).
std::string read_raw(const std::string& path, std::size_t max_bytes) {
  try {
    return read_regular_file(path, max_bytes);
  } catch (const FileRefused& e) {
    if (e.too_large()) throw too_large(path, max_bytes, "the file is");
    throw InputError(path, "cannot read: " + e.reason());
  }
}

// Inflates every gzip member in turn (`cat a.gz b.gz` is a valid gzip file, as gunzip agrees)
// into `out`, or only counts the bytes when `out` is null; stops as soon as the output would pass
// `max_bytes`. Returns the size of the output.
std::size_t inflate_into(std::string_view compressed, const std::string& path,
                         std::size_t max_bytes, std::string* out) {
  const auto invalid = [&path](const std::string& why) {
    return InputError(path, "not a valid gzip file: " + why);
  };
  z_stream stream{};
  if (inflateInit2(&stream, 16 + MAX_WBITS) != Z_OK) throw invalid("zlib failed to start");
  const std::unique_ptr<z_stream, int (*)(z_stream*)> cleanup(&stream, &inflateEnd);

  std::size_t size = 0;
  std::array<char, 1 << 16> buffer{};
  std::size_t fed = 0;  // bytes of `compressed` handed to zlib so far
  while (true) {
    if (stream.avail_in == 0 && fed < compressed.size()) {
      // avail_in is 32-bit: feed large inputs in slices.
      const std::size_t slice = std::min<std::size_t>(compressed.size() - fed, 1U << 30);
      stream.next_in = reinterpret_cast<const Bytef*>(compressed.data() + fed);
      stream.avail_in = static_cast<uInt>(slice);
      fed += slice;
    }
    stream.next_out = reinterpret_cast<Bytef*>(buffer.data());
    stream.avail_out = static_cast<uInt>(buffer.size());
    const int status = inflate(&stream, Z_NO_FLUSH);
    const std::size_t produced = buffer.size() - stream.avail_out;
    if (produced > max_bytes - size) throw too_large(path, max_bytes, "decompressed, it is");
    if (out != nullptr) out->append(buffer.data(), produced);
    size += produced;
    const bool input_left = stream.avail_in > 0 || fed < compressed.size();
    if (status == Z_STREAM_END) {
      if (!input_left) return size;
      inflateReset(&stream);  // the next member
    } else if (status == Z_BUF_ERROR && !input_left) {
      throw invalid("it ends in the middle of the compressed data (truncated?)");
    } else if (status != Z_OK) {
      throw invalid(stream.msg != nullptr ? stream.msg : "zlib error " + std::to_string(status));
    }
  }
}

// Inflates twice: first counting, so that a file past the limit (a gzip bomb: a megabyte that
// inflates to gigabytes) is refused holding nothing, then into a string of the exact size.
std::string inflate_members(std::string_view compressed, const std::string& path,
                            std::size_t max_bytes) {
  std::string out;
  out.reserve(inflate_into(compressed, path, max_bytes, nullptr));
  inflate_into(compressed, path, max_bytes, &out);
  return out;
}

}  // namespace

std::string read_input_file(const std::string& path, std::size_t max_bytes) {
  std::string content = read_raw(path, max_bytes);
  if (!path.ends_with(".gz")) return content;
  return inflate_members(content, path, max_bytes);
}

std::string gunzip(std::string_view compressed, const std::string& name, std::size_t max_bytes) {
  return inflate_members(compressed, name, max_bytes);
}

}  // namespace gaptrain::sim
