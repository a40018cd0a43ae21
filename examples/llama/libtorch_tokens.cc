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

#include "absl/strings/str_join.h"
#include "workloads/llama/llama.h"

int main(int argc, char** argv) {
  namespace llama = custody::workloads::llama;
  int64_t tokens = 8;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--tokens=", 0) == 0) {
      tokens = std::atoll(a.c_str() + 9);
    } else {
      std::cerr << "usage: libtorch_tokens [--tokens=N]\n";
      return 2;
    }
  }
  const llama::LlamaWeights w = llama::random_weights(llama::LlamaConfig{}, /*seed=*/1);
  std::unique_ptr<llama::Generator> g = llama::make_libtorch_generator(w);
  for (int64_t i = 0; i < tokens; ++i) g->step();
  std::cout << "tokens: " << absl::StrJoin(g->tokens(), " ") << "\n";
  return 0;
}
