// Copyright 2026 The custody Authors.
//
// tools/compare/plans.h — the contenders of each workload on backend B: the
// workload under all five policies in their idioms (gc three times: a
// collection after every step, only the pressure trigger, neither), then the
// same workload in plain libtorch as the peer (CPU backends: kLibtorchPeer; a
// binary for the GPU links no libtorch and runs the policies alone, its peer
// being PyTorch's own CUDA ops, measured by tools/gpu/torch_peer.py).

#ifndef CUSTODY_TOOLS_COMPARE_PLANS_H_
#define CUSTODY_TOOLS_COMPARE_PLANS_H_

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "core/error.h"
#include "tools/compare/compare.h"
#include "workloads/llama/dispose.h"
#include "workloads/llama/gc.h"
#include "workloads/llama/llama.h"
#include "workloads/llama/manual.h"
#include "workloads/llama/scope.h"
#include "workloads/llama/tensor_ptr.h"
#include "workloads/mlp/dispose.h"
#include "workloads/mlp/gc.h"
#include "workloads/mlp/manual.h"
#include "workloads/mlp/mlp.h"
#include "workloads/mlp/scope.h"
#include "workloads/mlp/tensor_ptr.h"
#include "workloads/ops/dispose.h"
#include "workloads/ops/gc.h"
#include "workloads/ops/manual.h"
#include "workloads/ops/ops.h"
#include "workloads/ops/scope.h"
#include "workloads/ops/tensor_ptr.h"

namespace custody::compare {

inline constexpr int64_t kGcTriggerBytes = int64_t{8} << 20;

// The five policies' runners of one workload; each template takes (const Data&, const RunOptions&).
template <class B, template <class> class TensorPtrR, template <class> class DisposeR,
          template <class> class ScopeR, template <class> class GcR, template <class> class ManualR,
          class Data>
std::vector<Contender> policy_contenders(const Data* d) {
  using workloads::GcMode;
  using workloads::RunOptions;
  const auto gc = [d](GcMode mode) {
    return [d, mode]() -> std::unique_ptr<workloads::Runner> {
      RunOptions o;
      o.gc_mode = mode;
      o.gc_trigger_bytes = kGcTriggerBytes;
      return std::make_unique<GcR<B>>(*d, o);
    };
  };
  return {
      {"tensor_ptr", "tensor_ptr", [d] { return std::make_unique<TensorPtrR<B>>(*d, RunOptions{}); }},
      {"dispose", "dispose", [d] { return std::make_unique<DisposeR<B>>(*d, RunOptions{}); }},
      {"scope", "scope", [d] { return std::make_unique<ScopeR<B>>(*d, RunOptions{}); }},
      {"manual", "manual", [d] { return std::make_unique<ManualR<B>>(*d, RunOptions{}); }},
      {"gc:collect_every_step", "gc", gc(GcMode::kCollectEveryStep)},
      {"gc:trigger_8MiB", "gc", gc(GcMode::kPressureTrigger)},
      {"gc:no_collection", "gc", gc(GcMode::kNeither)},
  };
}

template <class B, bool kLibtorchPeer>
WorkloadPlan mlp_plan(const Options& o) {
  namespace mlp = workloads::mlp;
  auto data = std::make_shared<const mlp::MlpData>(mlp::make_data(mlp::MlpConfig{}));
  const mlp::MlpData* d = data.get();
  WorkloadPlan p;
  p.name = "mlp";
  p.unit = "training step";
  p.description = "2-layer MLP 128-512-10, batch 128, hand-written backward, in-place SGD";
  p.steps = o.steps > 0 ? o.steps : (o.quick ? 20 : 200);
  p.contenders = policy_contenders<B, mlp::TensorPtrTrainer, mlp::DisposeTrainer, mlp::ScopeTrainer,
                                   mlp::GcTrainer, mlp::ManualTrainer>(d);
  if constexpr (kLibtorchPeer) {
    p.contenders.push_back({"libtorch", "", [d] { return mlp::make_libtorch_trainer(*d); }});
  }
  p.data = data;
  return p;
}

template <class B, bool kLibtorchPeer>
WorkloadPlan llama_plan(const Options& o) {
  namespace llama = workloads::llama;
  auto weights = std::make_shared<const llama::LlamaWeights>(
      o.llama_checkpoint.empty() ? llama::random_weights(llama::LlamaConfig{}, /*seed=*/1)
                                 : llama::load_checkpoint(o.llama_checkpoint));
  const llama::LlamaWeights* w = weights.get();
  const llama::LlamaConfig& c = w->config;
  WorkloadPlan p;
  p.name = "llama";
  p.unit = "token";
  p.description = absl::StrFormat(
      "llama2 decoder dim %d, %d layers, %d heads, vocab %d (%s), greedy, KV cache", c.dim, c.n_layers,
      c.n_heads, c.vocab_size, o.llama_checkpoint.empty() ? "seeded random weights" : o.llama_checkpoint);
  p.steps = std::min<int64_t>(o.steps > 0 ? o.steps : (o.quick ? 8 : 64), c.seq_len - 2);
  p.contenders = policy_contenders<B, llama::TensorPtrGenerator, llama::DisposeGenerator,
                                   llama::ScopeGenerator, llama::GcGenerator, llama::ManualGenerator>(w);
  if constexpr (kLibtorchPeer) {
    p.contenders.push_back({"libtorch", "", [w] { return llama::make_libtorch_generator(*w); }});
  }
  p.data = weights;
  return p;
}

template <class B, bool kLibtorchPeer>
WorkloadPlan ops_plan(const Options& o) {
  namespace ops = workloads::ops;
  auto data = std::make_shared<const ops::OpsData>(ops::make_data(ops::OpsConfig{}));
  const ops::OpsData* d = data.get();
  WorkloadPlan p;
  p.name = "ops";
  p.unit = "round";
  p.description = "64 one-element ops, then views, exp/mean/div, matmul 512x1024x1024, tanh, in-place "
                  "copy_ and mul_ on a 1024x1024 state";
  p.steps = o.steps > 0 ? o.steps : (o.quick ? 10 : 100);
  p.contenders = policy_contenders<B, ops::TensorPtrMixer, ops::DisposeMixer, ops::ScopeMixer,
                                   ops::GcMixer, ops::ManualMixer>(d);
  if constexpr (kLibtorchPeer) {
    p.contenders.push_back({"libtorch", "", [d] { return ops::make_libtorch_mixer(*d); }});
  }
  p.data = data;
  return p;
}

// Every workload of `o` on B; with the libtorch peer last unless !kLibtorchPeer.
template <class B, bool kLibtorchPeer = true>
std::vector<WorkloadPlan> plans(const Options& o) {
  std::vector<WorkloadPlan> out;
  for (const std::string& w : o.workloads) {
    if (w == "mlp") {
      out.push_back(mlp_plan<B, kLibtorchPeer>(o));
    } else if (w == "llama") {
      out.push_back(llama_plan<B, kLibtorchPeer>(o));
    } else if (w == "ops") {
      out.push_back(ops_plan<B, kLibtorchPeer>(o));
    } else {
      throw InvalidArgument("compare: unknown workload '" + w + "' (known: mlp, llama, ops)");
    }
  }
  return out;
}

}  // namespace custody::compare

#endif  // CUSTODY_TOOLS_COMPARE_PLANS_H_
