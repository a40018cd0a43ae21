// Copyright 2026 The custody Authors.
//
// The serve workload in plain libtorch: the same server (ServerCore: the same
// queues and threads) with at::Tensor, each thread in InferenceMode and on the
// server's intra-op thread count; the compare tool's peer.

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <c10/core/InferenceMode.h>

#include <memory>
#include <vector>

#include "core/threads.h"
#include "workloads/libtorch_threads.h"
#include "workloads/serve/serve.h"

namespace custody::workloads::serve {
namespace {

at::Tensor tensor_of(const std::vector<float>& v, at::IntArrayRef sizes) {
  return at::from_blob(const_cast<float*>(v.data()), sizes, at::kFloat).clone();
}

struct LibtorchIdiom : DefaultIdiom {
  using Tensor = at::Tensor;
  struct Model {
    explicit Model(const mlp::MlpData& d) {
      const mlp::MlpConfig& c = d.config;
      c10::InferenceMode guard;
      w1 = tensor_of(d.w1, {c.hidden, c.features});
      b1 = tensor_of(d.b1, {c.hidden});
      w2 = tensor_of(d.w2, {c.classes, c.hidden});
      b2 = tensor_of(d.b2, {c.classes});
    }
    at::Tensor w1, b1, w2, b2;
  };
  struct Thread {
    Thread() { at::set_num_threads(custody::num_threads()); }  // the server's intra-op count
    c10::InferenceMode guard;
  };
  struct Session {
    explicit Session(const RunOptions&) { configure_libtorch_threads(); }
    void after_step() {}
    void after_finish() { configure_libtorch_threads(); }  // the count the server put back
  };

  static Tensor submit(const std::vector<float>& x, IntSpan shape) {
    c10::InferenceMode guard;
    return tensor_of(x, at::IntArrayRef(shape.data(), shape.size()));
  }
  static Tensor work(const Model& m, Tensor x) {
    at::Tensor h = at::addmm(m.b1, x, m.w1.t()).relu();
    return at::addmm(m.b2, h, m.w2.t()).softmax(1);
  }
  static std::vector<float> respond(Tensor out) {
    const float* p = out.data_ptr<float>();
    return std::vector<float>(p, p + out.numel());
  }
};

}  // namespace

std::unique_ptr<Server> make_libtorch_server(const ServeData& data) {
  return std::make_unique<ServerCore<LibtorchIdiom>>(data);
}

}  // namespace custody::workloads::serve
