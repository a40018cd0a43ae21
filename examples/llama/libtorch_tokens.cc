// Copyright 2026 The custody Authors.
//
// examples/llama/libtorch_tokens.cc — prints the token ids plain libtorch
// decodes (greedy) with the example's seeded random weights, as the example
// prints them ("tokens: 1 ..."): what llama_test.sh expects every policy's
// variant to print.
//
//   libtorch_tokens [--tokens=8]

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>

#include "absl/flags/flag.h"
#include "absl/strings/str_join.h"
#include "tools/flags/flags.h"
#include "workloads/llama/llama.h"

ABSL_FLAG(int64_t, tokens, 8, "tokens to generate after BOS (at least 1)");

int main(int argc, char** argv) {
  namespace llama = custody::workloads::llama;
  custody::flags::parse(argc, argv, "the llama workload's tokens decoded by plain libtorch (the peer)");
  const int64_t tokens = custody::flags::at_least("tokens", absl::GetFlag(FLAGS_tokens), 1);
  const llama::LlamaWeights w = llama::random_weights(llama::LlamaConfig{}, /*seed=*/1);
  std::unique_ptr<llama::Generator> g = llama::make_libtorch_generator(w);
  for (int64_t i = 0; i < tokens; ++i) g->step();
  std::cout << "tokens: " << absl::StrJoin(g->tokens(), " ") << "\n";
  return 0;
}
