// Copyright 2026 The custody Authors.
//
// workloads/workload.h — what the compare tool and the examples drive: a
// `Runner` is one workload (MLP training, llama decoding, an op mix) set up
// under one ownership policy and backend, written in that policy's idiom.
//
//   std::unique_ptr<Runner> r = mlp::make_runner<scope::Policy, Onednn>(data, options);
//   for (int i = 0; i < steps; ++i) r->step();   // one training step / token / round
//   double m = r->metric();                      // loss, accuracy, last token, ...
//   r->finish();                                 // every tensor given back (also by ~Runner)
//
// A workload package has two generic bodies, the step in the idiom of handles
// that own their references (`<workload>/tensor_ptr.h`) and in the idiom of a
// policy that collects (`<workload>/collecting.h`), and, for a policy whose idiom
// differs, its own header (`<workload>/<policy>.h`) with the step written the way
// a user of that policy would write it; the compare tool counts their lines.
// Model pieces shared by every policy come from core/nn.

#ifndef CUSTODY_WORKLOADS_WORKLOAD_H_
#define CUSTODY_WORKLOADS_WORKLOAD_H_

#include <cstdint>
#include <string>
#include <vector>

namespace custody::workloads {

// How a collecting policy's idiom gives memory back (PolicyIdiom::kCollects,
// core/policy_idiom.h; ignored by the other policies):
enum class CollectMode {
  kPressureTrigger,   // only the idiom's PressureTrigger(trigger_bytes) collects
  kCollectEveryStep,  // a collection after every step (and no trigger)
  kNeither,           // nothing collects: technique 1 as TorchSharp's guide warns
};

struct RunOptions {
  CollectMode collect_mode = CollectMode::kPressureTrigger;
  int64_t trigger_bytes = int64_t{8} << 20;
  // A deliberately wasteful variant of the idiom, for the held-dead report's
  // tests (custody/report): mlp's dispose idiom keeps the hidden activation to
  // the end of the step instead of disposing it after its last use. Others
  // ignore it.
  bool wasteful = false;
};

// A figure a runner reports besides its metric (a server's requests/s and
// latency percentiles); the compare tool prints and writes them.
struct Figure {
  std::string name;  // "requests_per_s", "p50_ms", ...
  double value = 0;
};

class Runner {
 public:
  virtual ~Runner() = default;
  // One unit of work: a training step, a generated token, a round of ops.
  virtual void step() = 0;
  // The workload's result so far (the mlp's last loss, llama's last token, ...).
  virtual double metric() = 0;
  // Gives back every tensor the runner holds; idempotent. After it, the
  // backend's live tensors and bytes are back where they were before the
  // runner was made (the compare tool reports any difference as leaked).
  virtual void finish() = 0;
  // What the runner measured itself, over the steps after its first (the
  // compare tool's warm-up); none for most workloads.
  virtual std::vector<Figure> figures() const { return {}; }
};

const char* collect_mode_name(CollectMode mode);

}  // namespace custody::workloads

#endif  // CUSTODY_WORKLOADS_WORKLOAD_H_
