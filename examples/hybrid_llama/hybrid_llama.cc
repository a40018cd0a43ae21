// Copyright 2026 The custody Authors.
//
// examples/hybrid_llama — ocaml-torch's refcounted llama2 in custody: the
// parameters and KV cache owned by the garbage collector, each token's
// activations in a dispose scope (workloads/llama/hybrid.h), the model's
// tensors shared from one regime into the other with custody::share_as
// (core/convert.h). It decodes 16 tokens from seeded random weights and
// checks them against the pure scope policy's:
//
//   ./bazelw run //examples/hybrid_llama
//   ./bazelw run --//backends:backend=aten //examples/hybrid_llama

#include <cstdint>
#include <iostream>
#include <vector>

#include "custody/tensor.h"
#include "policies/gc/gc.h"
#include "workloads/llama/hybrid.h"
#include "workloads/llama/llama.h"
#include "workloads/llama/scope.h"

int main() {
  namespace llama = custody::workloads::llama;
  using B = custody::SelectedBackend;
  llama::LlamaConfig c;  // stories15M's shape
  const llama::LlamaWeights w = llama::random_weights(c, /*seed=*/1);
  constexpr int kTokens = 16;

  llama::HybridGenerator<B> hybrid(w);
  llama::ScopeGenerator<B> pure(w);
  const int64_t live_after_setup = B::stats().snapshot().live_tensors;
  for (int i = 0; i < kTokens; ++i) {
    hybrid.step();
    pure.step();
  }
  std::cout << "hybrid llama (gc parameters, scoped activations) on " << B::name << ":";
  for (int64_t t : hybrid.tokens()) std::cout << " " << t;
  std::cout << "\nsame tokens as scope: " << (hybrid.tokens() == pure.tokens() ? "yes" : "no") << "\n";
  std::cout << "live tensors after " << kTokens << " tokens: "
            << B::stats().snapshot().live_tensors - live_after_setup << " more than after set-up\n";
  hybrid.finish();
  pure.finish();
  return hybrid.tokens() == pure.tokens() ? 0 : 1;
}
