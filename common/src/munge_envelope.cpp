#include "gaptrain/munge_envelope.hpp"

#include <munge.h>

#include <climits>
#include <cstdlib>
#include <memory>

namespace gaptrain::munge {

namespace {

struct ContextDeleter {
  void operator()(munge_ctx_t ctx) const noexcept { munge_ctx_destroy(ctx); }
};
using Context = std::unique_ptr<std::remove_pointer_t<munge_ctx_t>, ContextDeleter>;

struct FreeDeleter {
  void operator()(void* p) const noexcept { std::free(p); }  // libmunge allocates with malloc
};

// munge_ctx_strerror() carries details (which socket, why) that munge_strerror() lacks.
std::string describe(munge_err_t err, munge_ctx_t ctx) {
  const char* detail = ctx != nullptr ? munge_ctx_strerror(ctx) : nullptr;
  return std::string("munge: ") + (detail != nullptr ? detail : munge_strerror(err));
}

Context make_context(const std::string& socket_path) {
  Context ctx(munge_ctx_create());
  if (!ctx) throw MungeError("munge: cannot create a context (out of memory)");
  if (!socket_path.empty()) {
    const munge_err_t err = munge_ctx_set(ctx.get(), MUNGE_OPT_SOCKET, socket_path.c_str());
    if (err != EMUNGE_SUCCESS) throw MungeError(describe(err, ctx.get()));
  }
  return ctx;
}

}  // namespace

std::string seal(std::string_view payload, const std::string& socket_path) {
  if (payload.size() > static_cast<std::size_t>(INT_MAX)) {
    throw MungeError("munge: payload too large");
  }
  const Context ctx = make_context(socket_path);
  char* raw = nullptr;
  const munge_err_t err =
      munge_encode(&raw, ctx.get(), payload.data(), static_cast<int>(payload.size()));
  const std::unique_ptr<char, FreeDeleter> credential(raw);
  if (err != EMUNGE_SUCCESS || !credential) throw MungeError(describe(err, ctx.get()));
  return std::string(credential.get());
}

Opened open(std::string_view credential, const std::string& socket_path) {
  const Context ctx = make_context(socket_path);
  const std::string text(credential);  // libmunge wants a NUL-terminated string
  void* raw = nullptr;
  int length = 0;
  uid_t uid = 0;
  gid_t gid = 0;
  const munge_err_t err = munge_decode(text.c_str(), ctx.get(), &raw, &length, &uid, &gid);
  // On replayed or expired credentials libmunge still hands out the payload; it must be
  // freed, and never trusted.
  const std::unique_ptr<void, FreeDeleter> payload(raw);
  if (err != EMUNGE_SUCCESS) throw MungeError(describe(err, ctx.get()));
  Opened opened;
  if (payload && length > 0) {
    opened.payload.assign(static_cast<const char*>(payload.get()),
                          static_cast<std::size_t>(length));
  }
  opened.uid = uid;
  opened.gid = gid;
  return opened;
}

}  // namespace gaptrain::munge
