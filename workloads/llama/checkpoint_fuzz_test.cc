// Copyright 2026 The custody Authors.
//
// workloads/llama/checkpoint_fuzz_test.cc — llama::load_checkpoint over arbitrary bytes (Note
// [Checkpoint validation], llama.cc). Each input is a file's whole content (an in-memory file,
// memfd_create, read through /proc/self/fd): load_checkpoint must either return weights whose every
// array has the size its config says, or throw InvalidArgument naming the file; anything else (another
// exception, a crash, an allocation past the input's size under ASan) is a finding. Seeded with tiny
// valid checkpoints (corpus/checkpoint/: own and shared classifiers, 1 and 2 layers).
//   ./bazelw run --config=fuzz //workloads/llama:checkpoint_fuzz_test -- -runs=10000000

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/error.h"
#include "workloads/llama/llama.h"

namespace {

[[noreturn]] void fail(const std::string& why) {
  std::fprintf(stderr, "checkpoint fuzz: %s\n", why.c_str());
  std::fflush(stderr);
  std::abort();
}

// The weights match their config, array by array.
void check(const custody::workloads::llama::LlamaWeights& w) {
  const auto& c = w.config;
  const auto expect = [](const std::vector<float>& v, int64_t n, const char* what) {
    if (static_cast<int64_t>(v.size()) != n) {
      fail(std::string(what) + " has " + std::to_string(v.size()) + " floats, its config says " +
           std::to_string(n));
    }
  };
  expect(w.token_embedding, c.vocab_size * c.dim, "token_embedding");
  if (static_cast<int64_t>(w.layers.size()) != c.n_layers) fail("layers differ from n_layers");
  for (const auto& l : w.layers) {
    expect(l.wq, c.dim * c.dim, "wq");
    expect(l.wk, c.kv_dim() * c.dim, "wk");
    expect(l.w2, c.dim * c.hidden_dim, "w2");
  }
  expect(w.rms_final, c.dim, "rms_final");
  if (!w.wcls.empty()) expect(w.wcls, c.vocab_size * c.dim, "wcls");
}

// Inputs seen and loaded, printed at exit: the fuzzer must reach the loading path, not only refusals.
int64_t g_inputs = 0, g_loaded = 0;
void report() {
  std::fprintf(stderr, "checkpoint fuzz: %lld inputs, %lld loaded as checkpoints\n",
               static_cast<long long>(g_inputs), static_cast<long long>(g_loaded));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  [[maybe_unused]] static const bool at_exit = (std::atexit(report), true);
  ++g_inputs;
  static const int fd = memfd_create("checkpoint", MFD_CLOEXEC);
  if (fd < 0) fail("memfd_create failed");
  static const std::string path = "/proc/self/fd/" + std::to_string(fd);
  if (ftruncate(fd, 0) != 0) fail("ftruncate failed");
  size_t done = 0;
  while (done < size) {
    const ssize_t n = pwrite(fd, data + done, size - done, static_cast<off_t>(done));
    if (n <= 0) fail("pwrite failed");
    done += static_cast<size_t>(n);
  }
  try {
    check(custody::workloads::llama::load_checkpoint(path));
    ++g_loaded;
  } catch (const custody::InvalidArgument& e) {
    if (std::string(e.what()).find(path) == std::string::npos) fail(std::string("unnamed file: ") + e.what());
  } catch (const std::exception& e) {
    fail(std::string("not an InvalidArgument: ") + e.what());
  }
  return 0;
}
