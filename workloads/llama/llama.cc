// Copyright 2026 The custody Authors.

#include "workloads/llama/llama.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace custody::workloads::llama {

LlamaWeights random_weights(const LlamaConfig& c, uint32_t seed) {
  std::mt19937 gen(seed);
  const auto uniform = [&gen] {  // [0, 1), identical across standard libraries
    return static_cast<double>(gen() >> 8) / static_cast<double>(1u << 24);
  };
  const auto normal = [&](int64_t n, double stddev) {  // Box-Muller
    std::vector<float> v(static_cast<size_t>(n));
    for (float& e : v) {
      const double u1 = 1.0 - uniform(), u2 = uniform();
      e = static_cast<float>(stddev * std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2));
    }
    return v;
  };
  // Linear weights N(0, 1/fan_in) keep activations at unit scale through the
  // layers, so each token's logits depend on the context (not only on the
  // last token's embedding).
  const auto linear = [&](int64_t out, int64_t in) { return normal(out * in, 1.0 / std::sqrt(static_cast<double>(in))); };
  const auto ones = [](int64_t n) { return std::vector<float>(static_cast<size_t>(n), 1.f); };
  LlamaWeights w;
  w.config = c;
  w.token_embedding = normal(c.vocab_size * c.dim, 1.0);
  for (int64_t l = 0; l < c.n_layers; ++l) {
    LayerWeights lw;
    lw.rms_att = ones(c.dim);
    lw.wq = linear(c.dim, c.dim);
    lw.wk = linear(c.kv_dim(), c.dim);
    lw.wv = linear(c.kv_dim(), c.dim);
    lw.wo = linear(c.dim, c.dim);
    lw.rms_ffn = ones(c.dim);
    lw.w1 = linear(c.hidden_dim, c.dim);
    lw.w2 = linear(c.dim, c.hidden_dim);
    lw.w3 = linear(c.hidden_dim, c.dim);
    w.layers.push_back(std::move(lw));
  }
  w.rms_final = ones(c.dim);
  // A classifier of its own: shared with the embedding, the logits of random
  // weights would mostly pick the last token again.
  w.wcls = linear(c.vocab_size, c.dim);
  return w;
}

namespace {

// Note [Checkpoint validation]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A llama2.c legacy checkpoint (run.c's .bin) is 7 int32 header fields, then
// float32 arrays whose sizes follow from the header. Everything is checked
// before any buffer is made, so a bad or hostile file costs nothing: the path
// names a regular file (a directory, a FIFO, a device or socket: each its own
// message); each header field is positive and they fit together (dim a
// multiple of n_heads, n_heads of n_kv_heads, an even head size); each array's
// size and their sum are computed with overflow checks; and the header plus
// the arrays must be exactly the file's size. Buffers are then at most the
// file's size, and every read checks its count: a file that shrinks while it
// is read says so. Each refusal is an InvalidArgument naming the file and the
// field. //workloads/llama:checkpoint_fuzz_test fuzzes all of it.

constexpr int64_t kHeaderBytes = 7 * sizeof(int32_t);

[[noreturn]] void refuse(const std::string& path, const std::string& why) {
  throw InvalidArgument(absl::StrFormat("llama::load_checkpoint: '%s' %s", path, why));
}

// An open checkpoint file: a regular file, read by offset.
class CheckpointFile {
 public:
  explicit CheckpointFile(const std::string& path) : path_(path) {
    // O_NONBLOCK: opening a FIFO nobody writes must not hang before it is refused.
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd_ < 0) {
      throw InvalidArgument(absl::StrFormat("llama::load_checkpoint: cannot open '%s': %s", path,
                                            std::strerror(errno)));
    }
    struct stat st;
    if (::fstat(fd_, &st) != 0) {
      const int err = errno;
      ::close(fd_);
      refuse(path, absl::StrCat("cannot be examined (fstat): ", std::strerror(err)));
    }
    const char* kind = S_ISDIR(st.st_mode)    ? "a directory"
                       : S_ISFIFO(st.st_mode) ? "a FIFO (named pipe)"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                       : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
                       : S_ISREG(st.st_mode)  ? nullptr
                                              : "not a regular file";
    if (kind != nullptr) {
      ::close(fd_);
      refuse(path, absl::StrCat("is ", kind, ", not a checkpoint file: a llama2.c .bin must be a "
                                "regular file, whose size is checked against its header before "
                                "anything is read"));
    }
    size_ = static_cast<int64_t>(st.st_size);
  }
  CheckpointFile(const CheckpointFile&) = delete;
  CheckpointFile& operator=(const CheckpointFile&) = delete;
  ~CheckpointFile() { ::close(fd_); }

  int64_t size() const { return size_; }
  const std::string& path() const { return path_; }

  // Exactly `bytes` at `offset` into `out`, else InvalidArgument naming `field`.
  void read_at(void* out, int64_t bytes, int64_t offset, const char* field) const {
    auto* p = static_cast<char*>(out);
    int64_t done = 0;
    while (done < bytes) {
      const ssize_t n = ::pread(fd_, p + done, static_cast<size_t>(bytes - done), offset + done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        refuse(path_, absl::StrFormat("could not be read at offset %d (%s): %s", offset + done, field,
                                      std::strerror(errno)));
      }
      if (n == 0) {
        refuse(path_, absl::StrFormat(
                          "shrank while being read: it ended at offset %d, inside %s (%d bytes at "
                          "offset %d; it had %d bytes when opened)",
                          offset + done, field, bytes, offset, size_));
      }
      done += n;
    }
  }

 private:
  std::string path_;
  int fd_ = -1;
  int64_t size_ = 0;
};

// One float32 array of the file, in its order.
struct Array {
  const char* name;
  const char* shape;             // how the header sizes it, for messages
  std::vector<int64_t> factors;  // the header's fields whose product is its length
  int64_t floats = 0;            // set once checked
  int64_t offset = 0;
};

// The product of `factors`; false when it passes int64.
bool checked_product(const std::vector<int64_t>& factors, int64_t* out) {
  int64_t p = 1;
  for (int64_t f : factors) {
    if (__builtin_mul_overflow(p, f, &p)) return false;
  }
  *out = p;
  return true;
}

}  // namespace

LlamaWeights load_checkpoint(const std::string& path) {
  const CheckpointFile file(path);
  if (file.size() < kHeaderBytes) {
    refuse(path, absl::StrFormat("ends early: it has %d bytes, fewer than the %d of a llama2.c header "
                                 "(7 int32 fields: dim, hidden_dim, n_layers, n_heads, n_kv_heads, "
                                 "vocab_size, seq_len)",
                                 file.size(), kHeaderBytes));
  }
  int32_t header[7];
  file.read_at(header, kHeaderBytes, 0, "the header");
  static constexpr const char* kFields[7] = {"dim",      "hidden_dim", "n_layers", "n_heads",
                                             "n_kv_heads", "vocab_size", "seq_len"};
  const std::string fields = absl::StrFormat(
      "dim=%d hidden_dim=%d n_layers=%d n_heads=%d n_kv_heads=%d vocab_size=%d seq_len=%d", header[0],
      header[1], header[2], header[3], header[4], header[5], header[6]);
  for (int i = 0; i < 7; ++i) {
    // llama2.c: a negative vocab_size means the classifier is stored after the other weights.
    const int64_t v = i == 5 ? std::abs(static_cast<int64_t>(header[i])) : header[i];
    if (v <= 0) {
      refuse(path, absl::StrFormat("has an invalid header: %s = %d must be %s (%s)", kFields[i], header[i],
                                   i == 5 ? "non-zero" : "positive", fields));
    }
  }
  LlamaConfig c;
  c.dim = header[0];
  c.hidden_dim = header[1];
  c.n_layers = header[2];
  c.n_heads = header[3];
  c.n_kv_heads = header[4];
  const bool shared = header[5] > 0;
  c.vocab_size = std::abs(static_cast<int64_t>(header[5]));
  c.seq_len = header[6];
  if (c.dim % c.n_heads != 0) {
    refuse(path, absl::StrFormat("has an invalid header: dim = %d is not a multiple of n_heads = %d (%s)",
                                 c.dim, c.n_heads, fields));
  }
  if (c.n_heads % c.n_kv_heads != 0) {
    refuse(path, absl::StrFormat(
                     "has an invalid header: n_heads = %d is not a multiple of n_kv_heads = %d (%s)",
                     c.n_heads, c.n_kv_heads, fields));
  }
  if (c.head_size() % 2 != 0) {
    refuse(path, absl::StrFormat("has an invalid header: the head size dim / n_heads = %d is odd, the "
                                 "rotary embedding pairs its elements (%s)",
                                 c.head_size(), fields));
  }

  // The arrays, in run.c's order ([layer][...] for the per-layer weights), sized before anything is made.
  const int64_t L = c.n_layers, d = c.dim, kv = c.kv_dim(), h = c.hidden_dim, V = c.vocab_size;
  std::vector<Array> arrays = {
      {"token_embedding_table", "vocab_size x dim", {V, d}},
      {"rms_att_weight", "n_layers x dim", {L, d}},
      {"wq", "n_layers x dim x dim", {L, d, d}},
      {"wk", "n_layers x kv_dim x dim", {L, kv, d}},
      {"wv", "n_layers x kv_dim x dim", {L, kv, d}},
      {"wo", "n_layers x dim x dim", {L, d, d}},
      {"rms_ffn_weight", "n_layers x dim", {L, d}},
      {"w1", "n_layers x hidden_dim x dim", {L, h, d}},
      {"w2", "n_layers x dim x hidden_dim", {L, d, h}},
      {"w3", "n_layers x hidden_dim x dim", {L, h, d}},
      {"rms_final_weight", "dim", {d}},
      {"freq_cis_real and freq_cis_imag", "seq_len x head_size", {c.seq_len, c.head_size()}},
  };
  if (!shared) arrays.push_back({"wcls", "vocab_size x dim", {V, d}});
  int64_t end = kHeaderBytes;
  for (Array& a : arrays) {
    int64_t bytes;
    if (!checked_product(a.factors, &a.floats) || !checked_product({a.floats, 4}, &bytes) ||
        __builtin_add_overflow(end, bytes, &end)) {
      refuse(path, absl::StrFormat("has an invalid header: %s (%s floats) and what precedes it pass 2^63 "
                                   "bytes (%s)",
                                   a.name, a.shape, fields));
    }
    a.offset = end - bytes;
  }
  if (end != file.size()) {
    refuse(path, absl::StrFormat(
                     "%s: its header (%s, %s classifier) needs %d bytes, the file has %d (a llama2.c "
                     "legacy .bin file? its header must match its size)",
                     end > file.size() ? "ends early" : "is longer than its header says", fields,
                     shared ? "shared" : "own", end, file.size()));
  }

  // Now the buffers: together exactly the file's size.
  const auto load = [&](const Array& a) {
    std::vector<float> v(static_cast<size_t>(a.floats));
    file.read_at(v.data(), a.floats * static_cast<int64_t>(sizeof(float)), a.offset, a.name);
    return v;
  };
  LlamaWeights w;
  w.config = c;
  w.token_embedding = load(arrays[0]);
  std::vector<float> per_layer[9];
  for (int k = 0; k < 9; ++k) per_layer[k] = load(arrays[1 + k]);
  const auto slice = [L](const std::vector<float>& all, int64_t l) {
    const int64_t n = static_cast<int64_t>(all.size()) / L;
    return std::vector<float>(all.begin() + l * n, all.begin() + (l + 1) * n);
  };
  for (int64_t l = 0; l < L; ++l) {
    w.layers.push_back(LayerWeights{slice(per_layer[0], l), slice(per_layer[1], l), slice(per_layer[2], l),
                                    slice(per_layer[3], l), slice(per_layer[4], l), slice(per_layer[5], l),
                                    slice(per_layer[6], l), slice(per_layer[7], l), slice(per_layer[8], l)});
  }
  w.rms_final = load(arrays[10]);
  if (!shared) w.wcls = load(arrays[12]);  // the rotary tables (arrays[11]) are computed, not read
  return w;
}

}  // namespace custody::workloads::llama
