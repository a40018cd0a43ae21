// Copyright 2026 The custody Authors.

#include "workloads/train/train.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "absl/strings/str_format.h"
#include "core/error.h"

namespace custody::workloads::train {
namespace {

void require(bool ok, const char* field, int64_t value, const char* what) {
  if (!ok) throw InvalidArgument(absl::StrFormat("train: %s = %d %s", field, value, what));
}

// Window starts for the rows of a step's batch: a fixed odd stride through
// the stream, so consecutive steps see different text.
int64_t window_start(const TrainConfig& c, int64_t step, int64_t row) {
  const int64_t windows = c.stream_length - c.seq - 1;
  return ((step * c.batch + row) * 7919) % windows;
}

}  // namespace

const char* pathology_name(Pathology p) {
  switch (p) {
    case Pathology::kNone:
      return "none";
    case Pathology::kKeepLoss:
      return "keep_loss";
    case Pathology::kCreateGraph:
      return "create_graph";
    case Pathology::kScopedGrads:
      return "scoped_grads";
  }
  return "?";
}

TrainData make_data(const TrainConfig& c) {
  require(c.vocab >= 2, "vocab", c.vocab, "(need at least 2 tokens)");
  require(c.dim > 0 && c.n_heads > 0 && c.dim % c.n_heads == 0, "dim", c.dim, "(need a multiple of n_heads)");
  require(c.head_size() % 2 == 0, "head_size", c.head_size(), "(rotary embeddings need it even)");
  require(c.hidden_dim > 0, "hidden_dim", c.hidden_dim, "(need > 0)");
  require(c.n_layers > 0, "n_layers", c.n_layers, "(need > 0)");
  require(c.seq > 0 && c.batch > 0, "seq", c.seq, "and batch need to be > 0");
  require(c.micro_batches > 0, "micro_batches", c.micro_batches, "(need > 0)");
  require(c.stream_length > c.seq + 1, "stream_length", c.stream_length, "(need more than seq + 1 tokens)");
  if (!(c.dropout >= 0 && c.dropout < 1)) {
    throw InvalidArgument(absl::StrFormat("train: dropout = %g (need [0, 1))", c.dropout));
  }
  TrainData d;
  d.config = c;
  d.weights = llama::random_weights(c.model(), c.seed);

  // A Markov chain: token t is followed by one of three successors of its
  // own, with probabilities 0.7, 0.2 and 0.1.
  std::mt19937 gen(c.seed + 1);
  const auto below = [&gen](int64_t n) { return static_cast<int64_t>(gen() % static_cast<uint32_t>(n)); };
  std::vector<int64_t> successors(static_cast<size_t>(c.vocab * 3));
  for (int64_t& s : successors) s = below(c.vocab);
  d.stream.resize(static_cast<size_t>(c.stream_length));
  int64_t token = 0;
  for (int64_t& t : d.stream) {
    t = token;
    const int64_t r = below(10);
    token = successors[static_cast<size_t>(token * 3 + (r < 7 ? 0 : r < 9 ? 1 : 2))];
  }

  const int64_t half = c.head_size() / 2;
  d.rope_cos.resize(static_cast<size_t>(c.seq * half));
  d.rope_sin.resize(d.rope_cos.size());
  for (int64_t pos = 0; pos < c.seq; ++pos) {
    for (int64_t i = 0; i < half; ++i) {
      const double freq = 1.0 / std::pow(10000.0, static_cast<double>(2 * i) / static_cast<double>(c.head_size()));
      const double angle = static_cast<double>(pos) * freq;
      d.rope_cos[static_cast<size_t>(pos * half + i)] = static_cast<float>(std::cos(angle));
      d.rope_sin[static_cast<size_t>(pos * half + i)] = static_cast<float>(std::sin(angle));
    }
  }
  d.causal_mask.assign(static_cast<size_t>(c.seq * c.seq), 0.f);
  for (int64_t i = 0; i < c.seq; ++i) {
    for (int64_t j = i + 1; j < c.seq; ++j) {
      d.causal_mask[static_cast<size_t>(i * c.seq + j)] = -std::numeric_limits<float>::infinity();
    }
  }
  return d;
}

Batch TrainData::batch(int64_t step) const {
  const TrainConfig& c = config;
  Batch b;
  b.inputs.reserve(static_cast<size_t>(c.batch * c.seq));
  b.targets.reserve(b.inputs.capacity());
  for (int64_t row = 0; row < c.batch; ++row) {
    const int64_t start = window_start(c, step, row);
    for (int64_t i = 0; i < c.seq; ++i) {
      b.inputs.push_back(stream[static_cast<size_t>(start + i)]);
      b.targets.push_back(stream[static_cast<size_t>(start + i + 1)]);
    }
  }
  return b;
}

}  // namespace custody::workloads::train
