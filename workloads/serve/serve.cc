// Copyright 2026 The custody Authors.

#include "workloads/serve/serve.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "core/threads.h"

namespace custody::workloads::serve {

ServeData make_data(const ServeConfig& c) {
  ServeData d;
  d.config = c;
  d.model = mlp::make_data(c.model);
  std::mt19937 gen(c.seed);
  const auto uniform = [&gen] { return static_cast<double>(gen() >> 8) / static_cast<double>(1u << 24); };
  d.inputs.resize(static_cast<size_t>(c.distinct_inputs));
  for (std::vector<float>& x : d.inputs) {
    x.resize(static_cast<size_t>(c.batch * c.model.features));
    for (float& v : x) v = static_cast<float>(4.0 * uniform() - 2.0);
  }
  return d;
}

Answer read_answer(std::vector<float> probabilities, int64_t classes) {
  Answer a;
  const auto rows = static_cast<int64_t>(probabilities.size()) / classes;
  for (int64_t r = 0; r < rows; ++r) {
    const auto row = probabilities.begin() + r * classes;
    a.classes.push_back(std::max_element(row, row + classes) - row);
  }
  a.probabilities = std::move(probabilities);
  return a;
}

Server::Server(const ServeData& d) : d_(d), previous_threads_(custody::num_threads()) {
  custody::set_num_threads(d.config.intra_op_threads);
}

Server::~Server() { restore_threads(); }

void Server::restore_threads() {
  if (threads_restored_) return;
  threads_restored_ = true;
  custody::set_num_threads(previous_threads_);
}

int64_t Server::begin_step() {
  const int64_t first = next_id_;
  next_id_ += d_.config.requests_per_step;
  answers_.resize(static_cast<size_t>(next_id_));
  return first;
}

void Server::answered(int64_t id, std::vector<float> probabilities, Clock::time_point submitted) {
  const double ms = std::chrono::duration<double, std::milli>(Clock::now() - submitted).count();
  // answers_ is sized before the requests are queued; each slot is written once, here.
  answers_[static_cast<size_t>(id)] = read_answer(std::move(probabilities), d_.config.model.classes);
  {
    std::lock_guard<std::mutex> lock(mu_);
    pending_.emplace_back(id, ms);
    ++answered_;
  }
  cv_.notify_all();
}

void Server::failed(int64_t /*id*/, std::exception_ptr error) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!error_) error_ = error;
    ++answered_;
  }
  cv_.notify_all();
}

void Server::end_step(int64_t first, Clock::time_point started) {
  std::vector<std::pair<int64_t, double>> done;
  std::exception_ptr error;
  {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return answered_ == next_id_; });
    done.swap(pending_);
    error = std::exchange(error_, nullptr);
  }
  if (error) std::rethrow_exception(error);
  const double s = std::chrono::duration<double>(Clock::now() - started).count();
  if (steps_++ > 0) {  // the first step warms up (primitives, caches, thread pools)
    measured_s_ += s;
    measured_requests_ += next_id_ - first;
    for (const auto& [id, ms] : done) latencies_ms_.push_back(ms);
  }
}

double Server::metric() {
  double m = 0;
  for (int64_t id = std::max<int64_t>(0, next_id_ - d_.config.requests_per_step); id < next_id_; ++id) {
    const std::vector<float>& p = answers_[static_cast<size_t>(id)].probabilities;
    for (size_t i = 0; i < p.size(); ++i) {
      m += static_cast<double>(p[i]) * static_cast<double>(i % static_cast<size_t>(d_.config.model.classes) + 1);
    }
  }
  return m;
}

std::vector<Figure> Server::figures() const {
  std::vector<double> l = latencies_ms_;
  std::sort(l.begin(), l.end());
  // The nearest-rank percentile.
  const auto percentile = [&l](double q) {
    if (l.empty()) return 0.0;
    const auto rank = static_cast<size_t>(std::ceil(q * static_cast<double>(l.size())));
    return l[std::clamp<size_t>(rank, 1, l.size()) - 1];
  };
  return {
      {"workers", static_cast<double>(d_.config.workers)},
      {"requests_per_s", measured_s_ > 0 ? static_cast<double>(measured_requests_) / measured_s_ : 0},
      {"p50_ms", percentile(0.50)},
      {"p99_ms", percentile(0.99)},
  };
}

}  // namespace custody::workloads::serve
