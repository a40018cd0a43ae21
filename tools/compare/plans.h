// Copyright 2026 The custody Authors.
//
// tools/compare/plans.h — the built-in workloads' plans on backend B and their
// registration with the registry an own workload registers with (registry.h,
// register.h): each workload under every policy of a list in its idiom (a
// collecting policy, gc, three times: a collection after every step, only the
// pressure trigger, neither), for llama the hybrid of two policies
// (workloads/llama/hybrid.h), then the same workload in plain libtorch as the
// peer (CPU backends: kLibtorchPeer; a binary for the GPU links no libtorch and
// runs the policies alone, its peer being PyTorch's own CUDA ops, measured by
// tools/gpu/torch_peer.py).

#ifndef CUSTODY_TOOLS_COMPARE_PLANS_H_
#define CUSTODY_TOOLS_COMPARE_PLANS_H_

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "core/policy_idiom.h"
#include "custody/lists/type_list.h"
#include "tools/compare/compare.h"
#include "tools/compare/registry.h"
#include "workloads/llama/hybrid.h"
#include "workloads/llama/llama.h"
#include "workloads/llama/runners.h"
#include "workloads/mlp/mlp.h"
#include "workloads/mlp/runners.h"
#include "workloads/mlp_autograd/mlp_autograd.h"
#include "workloads/mlp_autograd/runners.h"
#include "workloads/ops/ops.h"
#include "workloads/ops/runners.h"
#include "workloads/serve/runners.h"
#include "workloads/serve/serve.h"
#include "workloads/train/runners.h"
#include "workloads/train/train.h"

namespace custody::compare {

inline constexpr int64_t kTriggerBytes = int64_t{8} << 20;

// The runners of one workload (RunnerFor<P, B>, its runners.h) under every
// policy of Policies: one contender per policy, named as the policy; a policy
// that collects (PolicyIdiom::kCollects) three times, "<name>:<mode>": a
// collection after every step, only the pressure trigger, neither.
template <class B, class Policies, template <class, class> class RunnerFor, class Data>
std::vector<Contender> policy_contenders(const Data* d) {
  using workloads::CollectMode;
  using workloads::RunOptions;
  std::vector<Contender> out;
  custody::lists::for_each_type(Policies{}, [&]<class P>() {
    using R = RunnerFor<P, B>;
    const std::string name = P::name;
    if constexpr (custody::PolicyIdiom<P>::kCollects) {
      const auto with = [d](CollectMode mode) {
        return [d, mode]() -> std::unique_ptr<workloads::Runner> {
          RunOptions o;
          o.collect_mode = mode;
          o.trigger_bytes = kTriggerBytes;
          return std::make_unique<R>(*d, o);
        };
      };
      const CollectorHooks hooks = collector_hooks<P>();
      out.push_back({name + ":collect_every_step", name, with(CollectMode::kCollectEveryStep), hooks});
      out.push_back({name + ":trigger_8MiB", name, with(CollectMode::kPressureTrigger), hooks});
      out.push_back({name + ":no_collection", name, with(CollectMode::kNeither), hooks});
    } else {
      out.push_back({name, name, [d] { return std::make_unique<R>(*d, RunOptions{}); },
                     collector_hooks<P>()});
    }
  });
  // The collecting policy's variants last, as the table has always shown them.
  std::stable_partition(out.begin(), out.end(), [](const Contender& c) { return c.name == c.policy; });
  return out;
}

template <class B, class Policies, bool kLibtorchPeer>
WorkloadPlan mlp_plan(const Options& /*o*/, int64_t steps) {
  namespace mlp = workloads::mlp;
  auto data = std::make_shared<const mlp::MlpData>(mlp::make_data(mlp::MlpConfig{}));
  const mlp::MlpData* d = data.get();
  WorkloadPlan p;
  p.name = "mlp";
  p.unit = "training step";
  p.description = "2-layer MLP 128-512-10, batch 128, hand-written backward, in-place SGD";
  p.steps = steps;
  const mlp::MlpConfig& c = d->config;
  p.shapes = {{"features", c.features}, {"hidden", c.hidden}, {"classes", c.classes}, {"batch", c.batch}};
  p.contenders = policy_contenders<B, Policies, mlp::RunnerFor>(d);
  if constexpr (kLibtorchPeer) {
    p.contenders.push_back({"libtorch", "", [d] { return mlp::make_libtorch_trainer(*d); }});
  }
  p.data = data;
  return p;
}

// mlp's training with the gradients taken by the tape; its peer is libtorch's autograd.
template <class B, class Policies, bool kLibtorchPeer>
WorkloadPlan mlp_autograd_plan(const Options& /*o*/, int64_t steps) {
  namespace mlp_autograd = workloads::mlp_autograd;
  auto data = std::make_shared<const mlp_autograd::MlpData>(mlp_autograd::make_data(mlp_autograd::MlpConfig{}));
  const mlp_autograd::MlpData* d = data.get();
  WorkloadPlan p;
  p.name = "mlp_autograd";
  p.unit = "training step";
  p.description = "mlp's 2-layer MLP 128-512-10, batch 128, gradients by the tape (loss.backward()), SGD";
  p.steps = steps;
  const mlp_autograd::MlpConfig& c = d->config;
  p.shapes = {{"features", c.features}, {"hidden", c.hidden}, {"classes", c.classes}, {"batch", c.batch}};
  p.contenders = policy_contenders<B, Policies, mlp_autograd::RunnerFor>(d);
  if constexpr (kLibtorchPeer) {
    p.contenders.push_back({"libtorch", "", [d] { return mlp_autograd::make_libtorch_trainer(*d); }});
  }
  p.data = data;
  return p;
}

// A llama-shaped language model trained by the tape with AdamW, plainly or as
// one of the graph pathologies (workloads/train/train.h, Pathology); its peer
// is libtorch's autograd with torch::optim::AdamW.
template <class B, class Policies, bool kLibtorchPeer, workloads::train::Pathology kPathology>
WorkloadPlan train_plan(const Options& /*o*/, int64_t steps) {
  namespace train = workloads::train;
  train::TrainConfig config;
  config.pathology = kPathology;
  auto data = std::make_shared<const train::TrainData>(train::make_data(config));
  const train::TrainData* d = data.get();
  const train::TrainConfig& c = d->config;
  WorkloadPlan p;
  p.name = "train";
  if (kPathology != train::Pathology::kNone) p.variant = train::pathology_name(kPathology);
  p.unit = "training step";
  std::string what;
  switch (kPathology) {
    case train::Pathology::kNone:
      break;
    case train::Pathology::kKeepLoss:
      what = "; a running total of the losses kept without detach";
      break;
    case train::Pathology::kCreateGraph:
      what = "; a gradient penalty by backward(create_graph=true)";
      break;
    case train::Pathology::kScopedGrads:
      what = absl::StrFormat("; %d micro-batches a step, each in a region of its own", c.micro_batches);
      break;
  }
  p.description = absl::StrFormat(
      "llama-shaped LM dim %d, %d layers, %d heads, vocab %d, seq %d, batch %d, dropout %g, "
      "gradients by the tape, AdamW%s",
      c.dim, c.n_layers, c.n_heads, c.vocab, c.seq, c.batch, c.dropout, what);
  p.steps = steps;
  p.shapes = {{"dim", c.dim},     {"hidden_dim", c.hidden_dim}, {"n_layers", c.n_layers}, {"n_heads", c.n_heads},
              {"vocab", c.vocab}, {"seq", c.seq},               {"batch", c.batch}};
  p.contenders = policy_contenders<B, Policies, train::RunnerFor>(d);
  if constexpr (kLibtorchPeer) {
    p.contenders.push_back({"libtorch", "", [d] { return train::make_libtorch_trainer(*d); }});
  }
  p.data = data;
  return p;
}

template <class B, class Policies, bool kLibtorchPeer>
WorkloadPlan llama_plan(const Options& o, int64_t steps) {
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
  p.steps = std::min<int64_t>(steps, c.seq_len - 2);
  p.shapes = {{"dim", c.dim},           {"hidden_dim", c.hidden_dim}, {"n_layers", c.n_layers},
              {"n_heads", c.n_heads},   {"n_kv_heads", c.n_kv_heads}, {"vocab_size", c.vocab_size},
              {"seq_len", c.seq_len},   {"shared_classifier", w->wcls.empty() ? 1 : 0}};
  p.contenders = policy_contenders<B, Policies, llama::RunnerFor>(w);
  // Two regimes in one program (hybrid.h): gc parameters, each token's activations in a scope.
  using Hybrid = llama::HybridGenerator<B>;
  p.contenders.push_back({"hybrid:gc_params+scope", "hybrid", [w] { return std::make_unique<Hybrid>(*w); },
                          collector_hooks<typename Hybrid::CollectingPolicy>()});
  if constexpr (kLibtorchPeer) {
    p.contenders.push_back({"libtorch", "", [w] { return llama::make_libtorch_generator(*w); }});
  }
  p.data = weights;
  return p;
}

template <class B, class Policies, bool kLibtorchPeer>
WorkloadPlan ops_plan(const Options& o, int64_t steps) {
  namespace ops = workloads::ops;
  ops::OpsConfig config;
  if (o.ops_size > 0) config.rows = config.cols = o.ops_size;
  if (o.ops_tiny_ops > 0) config.tiny_ops = o.ops_tiny_ops;
  auto data = std::make_shared<const ops::OpsData>(ops::make_data(config));
  const ops::OpsData* d = data.get();
  WorkloadPlan p;
  p.name = "ops";
  p.unit = "round";
  p.description = absl::StrFormat(
      "%d one-element ops, then views, exp/mean/div, matmul %dx%dx%d, tanh, in-place copy_ and mul_ "
      "on a %dx%d state",
      config.tiny_ops, config.rows / 2, config.cols, config.cols, config.rows, config.cols);
  p.steps = steps;
  p.shapes = {{"rows", d->config.rows}, {"cols", d->config.cols}, {"tiny_ops", d->config.tiny_ops}};
  p.contenders = policy_contenders<B, Policies, ops::RunnerFor>(d);
  if constexpr (kLibtorchPeer) {
    p.contenders.push_back({"libtorch", "", [d] { return ops::make_libtorch_mixer(*d); }});
  }
  p.data = data;
  return p;
}

// serve on `workers` worker threads: one plan per worker count.
template <class B, class Policies, bool kLibtorchPeer>
WorkloadPlan serve_plan(int64_t steps, int workers) {
  namespace serve = workloads::serve;
  serve::ServeConfig config;
  config.workers = workers;
  auto data = std::make_shared<const serve::ServeData>(serve::make_data(config));
  const serve::ServeData* d = data.get();
  const serve::ServeConfig& c = d->config;
  WorkloadPlan p;
  p.name = "serve";
  p.variant = absl::StrFormat("%d worker%s", workers, workers == 1 ? "" : "s");
  p.unit = "wave";
  p.description = absl::StrFormat(
      "a server: %d requests per wave, each a [%d, %d] batch made on the submitting thread, an MLP "
      "%d-%d-%d inference with softmax on one of %d worker threads, its output read and released on a "
      "responder thread",
      c.requests_per_step, c.batch, c.model.features, c.model.features, c.model.hidden, c.model.classes,
      workers);
  p.steps = steps;
  p.shapes = {{"workers", workers},         {"requests_per_step", c.requests_per_step},
              {"batch", c.batch},           {"features", c.model.features},
              {"hidden", c.model.hidden},   {"classes", c.model.classes},
              {"intra_op_threads", c.intra_op_threads}};
  p.contenders = policy_contenders<B, Policies, serve::RunnerFor>(d);
  if constexpr (kLibtorchPeer) {
    p.contenders.push_back({"libtorch", "", [d] { return serve::make_libtorch_server(*d); }});
  }
  p.data = data;
  return p;
}

// The worker counts serve runs with: 2 in a quick run, else 1, 2 and 4.
inline std::vector<int> serve_workers(const Options& o) {
  return o.quick ? std::vector<int>{2} : std::vector<int>{1, 2, 4};
}

// Registers mlp, mlp_autograd, train, llama, ops and serve on B under every policy of Policies (a
// TypeList, custody/lists/type_list.h; tools/compare/policies.h says which),
// with the libtorch peer last unless !kLibtorchPeer, serve chosen as
// `serve_selection` says; called once per backend by the translation unit
// that registers its run (backend_run.h, backend_cuda.cc).
template <class B, class Policies, bool kLibtorchPeer>
bool register_builtin_workloads(Selection serve_selection = Selection::kDefault) {
  const auto one = [](WorkloadPlan (*plan)(const Options&, int64_t)) -> PlansFactory {
    return [plan](const Options& o, int64_t steps) { return std::vector<WorkloadPlan>{plan(o, steps)}; };
  };
  // Steps without --steps, then under --quick.
  register_workload(
      {"mlp", B::name, Selection::kDefault, 200, 20, one(&mlp_plan<B, Policies, kLibtorchPeer>)});
  register_workload(
      {"llama", B::name, Selection::kDefault, 64, 8, one(&llama_plan<B, Policies, kLibtorchPeer>)});
  register_workload(
      {"ops", B::name, Selection::kDefault, 100, 10, one(&ops_plan<B, Policies, kLibtorchPeer>)});
  // Run when named (--workloads=mlp_autograd, train and its pathologies keep_loss, create_graph,
  // scoped_grads), until its live set is in compare_test's table.
  register_workload({"mlp_autograd", B::name, Selection::kWhenNamed, 200, 20,
                     one(&mlp_autograd_plan<B, Policies, kLibtorchPeer>)});
  using workloads::train::Pathology;
  register_workload({"train", B::name, Selection::kWhenNamed, 50, 5,
                     one(&train_plan<B, Policies, kLibtorchPeer, Pathology::kNone>)});
  register_workload({"keep_loss", B::name, Selection::kWhenNamed, 50, 5,
                     one(&train_plan<B, Policies, kLibtorchPeer, Pathology::kKeepLoss>)});
  register_workload({"create_graph", B::name, Selection::kWhenNamed, 50, 5,
                     one(&train_plan<B, Policies, kLibtorchPeer, Pathology::kCreateGraph>)});
  register_workload({"scoped_grads", B::name, Selection::kWhenNamed, 50, 5,
                     one(&train_plan<B, Policies, kLibtorchPeer, Pathology::kScopedGrads>)});
  register_workload({"serve", B::name, serve_selection, 100, 20, [](const Options& o, int64_t steps) {
                       std::vector<WorkloadPlan> out;
                       for (int workers : serve_workers(o)) {
                         out.push_back(serve_plan<B, Policies, kLibtorchPeer>(steps, workers));
                       }
                       return out;
                     }});
  return true;
}

}  // namespace custody::compare

#endif  // CUSTODY_TOOLS_COMPARE_PLANS_H_
