// Copyright 2026 The custody Authors.
//
// workloads/ops/ops.h — the `ops` workload: a mix of tiny and large ops with
// views, in-place updates and temporaries, one round per step:
//
//   tiny:  a chain of `tiny_ops` one-element ops (s = s * 0.999 + 0.5, ...),
//          each result a temporary: per-op overhead of handles and ownership;
//   large: on a persistent state [rows, cols] (4 MiB at the defaults):
//            v   = state.narrow(0, offset, rows / 2)   a view
//            e   = v.exp(); m = e.mean(1, keepdim)     temporaries
//            z   = e / m                              broadcasting
//            y   = z.matmul(w).tanh()                 matmul [rows/2, cols] x [cols, cols]
//            v.copy_(y)                               in place, through the view
//            state.t().select(0, col).mul_(0.5)       in place on a strided view
//          and the round's result is state.sum().item<float>().
//
// One header per policy holds the round in that policy's idiom.

#ifndef CUSTODY_WORKLOADS_OPS_OPS_H_
#define CUSTODY_WORKLOADS_OPS_OPS_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "core/nn/var_store.h"
#include "core/tensor.h"
#include "workloads/workload.h"

namespace custody::workloads::ops {

struct OpsConfig {
  int64_t rows = 1024;
  int64_t cols = 1024;
  int64_t tiny_ops = 64;
  uint32_t seed = 1;
};

struct OpsData {
  OpsConfig config;
  std::vector<float> state;  // [rows, cols], U(-1, 1)
  std::vector<float> w;      // [cols, cols], U(-1/sqrt(cols), 1/sqrt(cols))
};

OpsData make_data(const OpsConfig& config);

// The persistent tensors of the workload, outside any scope.
template <AnyTensor T>
struct OpsState {
  explicit OpsState(const OpsData& d)
      : state(vs.from_vector("state", d.state, std::vector<int64_t>{d.config.rows, d.config.cols})),
        w(vs.from_vector("w", d.w, std::vector<int64_t>{d.config.cols, d.config.cols})) {}
  nn::VarStore<T> vs;
  T state, w;
};

class Mixer : public Runner {
 public:
  double metric() override { return checksum_; }

 protected:
  // Where this round's view starts and which column it scales.
  int64_t offset(const OpsConfig& c) const { return (round_ * 37) % (c.rows / 2 + 1); }
  int64_t column(const OpsConfig& c) const { return (round_ * 101) % c.cols; }
  double checksum_ = 0;
  int64_t round_ = 0;
};

// The same rounds in plain libtorch (ops_libtorch.cc): the compare tool's peer.
std::unique_ptr<Mixer> make_libtorch_mixer(const OpsData& data);

}  // namespace custody::workloads::ops

#endif  // CUSTODY_WORKLOADS_OPS_OPS_H_
