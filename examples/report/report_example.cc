// Copyright 2026 The custody Authors.
//
// examples/report — a program that holds memory past its last use and leaks a
// tensor, to be diagnosed by custody::report (custody/report.h):
//
//   CUSTODY_REPORT=/tmp/report.html ./bazelw run //examples/report
//   CUSTODY_REPORT=/tmp/report.html ./bazelw run --//policies:policy=gc //examples/report
//
// then open /tmp/report.html: the line holding most memory past its last use
// is make_features()'s (each step's features are released only after 30 more
// small ops), with the op that allocated it (randn) and what held it (the
// reference made there, released at the late custody::release below; under
// tensor_ptr its last handle); the leak is made in make_cache(). The program
// does not call the report: linking //custody:report and setting CUSTODY_REPORT
// is enough; custody::report::step() marks the steps when a report is
// recorded. CUSTODY_SNAPSHOT=/tmp/snapshot.pickle also writes the history as
// PyTorch's memory snapshot, for torch/cuda/_memory_viz.py.
//
// report_example_test.py finds the lines marked `// site:` below and checks
// that the report names them: move one and the expected line moves with it.

#include <iostream>

#include "absl/base/attributes.h"
#include "core/policy_traits.h"
#include "custody/report.h"
#include "custody/tensor.h"

namespace {

using custody::Tensor;

ABSL_ATTRIBUTE_NOINLINE Tensor make_features() {
  return Tensor::randn({512, 512});  // site: features (1 MiB)
}
ABSL_ATTRIBUTE_NOINLINE Tensor make_scratch() { return Tensor::ones({64, 64}); }
ABSL_ATTRIBUTE_NOINLINE Tensor* make_cache() {
  return new Tensor(Tensor::zeros({1000}));  // site: cache
}

}  // namespace

int main() {
  [[maybe_unused]] custody::PolicyTraits<custody::SelectedPolicy>::Unscoped no_scope_needed;
  float total = 0;
  for (int step = 0; step < 8; ++step) {
    Tensor features = make_features();
    Tensor mean = features.mean();  // the features' last use
    total += mean.item<float>();
    for (int i = 0; i < 30; ++i) {
      Tensor scratch = make_scratch();
      Tensor doubled = scratch.mul(2.0);
      custody::release(scratch);
      custody::release(doubled);
    }
    custody::release(features);  // site: release (late: held past its last use through the loop above)
    custody::release(mean);
    custody::report::step();
  }
  static Tensor* cache = make_cache();  // never released: a leak
  std::cout << "custody report example: " << custody::SelectedPolicy::name << " on "
            << custody::SelectedBackend::name << ", sum of means " << total << ", cache "
            << cache->numel() << " elements\n";
  return 0;
}
