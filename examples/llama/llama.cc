// Copyright 2026 The custody Authors.
//
// examples/llama — greedy decoding with the `llama` workload's llama2
// decoder (workloads/llama), under the policy and backend chosen by the
// flags, written in that policy's idiom (workloads/llama/<policy>.h, or the
// generic body it runs: tensor_ptr.h, collecting.h):
//
//   ./bazelw run //examples/llama                                  # seeded random weights
//   ./bazelw run //examples/llama -- --tokens=32 --checkpoint=/path/to/stories15M.bin
//   ./bazelw run --//policies:policy=manual --//backends:backend=aten //examples/llama
//
// Prints the token ids (BOS = 1 first); there is no tokenizer here, so a real
// checkpoint's ids are printed as numbers too.

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string>

#include "absl/flags/flag.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "tools/flags/flags.h"
#include "workloads/llama/selected.h"

ABSL_FLAG(int64_t, tokens, 16, "tokens to generate after BOS (at least 1)");
ABSL_FLAG(std::string, checkpoint, "",
          "a llama2.c legacy .bin checkpoint (e.g. stories15M.bin); empty: seeded random weights");

int main(int argc, char** argv) {
  namespace llama = custody::workloads::llama;
  custody::flags::parse(argc, argv,
                        "greedy decoding with a llama2 decoder under the policy and backend chosen at "
                        "build time; prints the token ids");
  const int64_t tokens = custody::flags::at_least("tokens", absl::GetFlag(FLAGS_tokens), 1);
  const std::string checkpoint = absl::GetFlag(FLAGS_checkpoint);
  try {
    const llama::LlamaWeights w =
        checkpoint.empty() ? llama::random_weights(llama::LlamaConfig{}, /*seed=*/1) : llama::load_checkpoint(checkpoint);
    const llama::LlamaConfig& c = w.config;
    std::cout << absl::StrFormat("llama: policy %s, backend %s; dim %d, %d layers, %d heads (%d kv), vocab %d, %s\n",
                                 custody::SelectedPolicy::name, custody::SelectedBackend::name, c.dim, c.n_layers,
                                 c.n_heads, c.n_kv_heads, c.vocab_size,
                                 checkpoint.empty() ? "seeded random weights" : checkpoint);
    llama::SelectedGenerator g(w);
    const auto t0 = std::chrono::steady_clock::now();
    for (int64_t i = 0; i < tokens; ++i) g.step();
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::cout << "tokens: " << absl::StrJoin(g.tokens(), " ") << "\n";
    std::cout << absl::StrFormat("%d tokens in %.1f ms (%.2f ms/token)\n", tokens, ms, ms / static_cast<double>(tokens));
    g.finish();
  } catch (const custody::Error& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
  return 0;
}
