// fuzz_replay_main: main() for cc_fuzz_test targets built without --config=fuzz.
//
// Feeds each file named on the command line, then 256 deterministic pseudo-random inputs of 0..255
// bytes, to LLVMFuzzerTestOneInput, so that every fuzz target is an ordinary regression test under gcc
// and every sanitizer config. A crash or sanitizer report fails the test, as it would under libFuzzer.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int* argc, char*** argv);

int main(int argc, char** argv) {
  if (LLVMFuzzerInitialize != nullptr) LLVMFuzzerInitialize(&argc, &argv);
  int files = 0;
  for (int i = 1; i < argc; ++i) {
    if (argv[i][0] == '-') continue;  // libFuzzer flags (-runs=N...) mean nothing here.
    std::ifstream in(argv[i], std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "fuzz_replay_main: cannot read %s\n", argv[i]);
      return 1;
    }
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
    ++files;
  }
  // 256 generated inputs, or FUZZ_REPLAY_INPUTS (for longer measurements without libFuzzer).
  long inputs = 256;
  if (const char* env = std::getenv("FUZZ_REPLAY_INPUTS"); env != nullptr && std::atol(env) > 0) {
    inputs = std::atol(env);
  }
  uint64_t state = 0x9E3779B97F4A7C15ull;  // splitmix64: the same inputs on every run.
  std::vector<uint8_t> bytes;
  for (long n = 0; n < inputs; ++n) {
    bytes.resize(static_cast<size_t>(n % 256));
    for (auto& b : bytes) {
      state += 0x9E3779B97F4A7C15ull;
      uint64_t z = state;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      b = static_cast<uint8_t>(z ^ (z >> 31));
    }
    LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
  }
  std::printf("fuzz_replay_main: %d corpus files, %ld generated inputs, no crash\n", files, inputs);
  return 0;
}
