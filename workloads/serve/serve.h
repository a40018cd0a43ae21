// Copyright 2026 The custody Authors.
//
// workloads/serve/serve.h — the `serve` workload: an inference server where
// tensors cross threads. Requests arrive on the submitting thread (the one
// calling step()), which makes each request's input tensor and queues it; W
// worker threads each take a request, run a batched MLP inference on it
// (features -> hidden -> relu -> classes -> softmax, mlp's initial weights)
// and queue the output; one responder thread reads each output back to the
// host and gives it back. So every request's input is made on one thread and
// released on another, and its output made on a worker and released on the
// responder: where the ownership policies differ most (scope's detach and
// attach, dispose's and manual's release on another thread, gc's registered
// threads and collections while workers run, tensor_ptr's shared counts).
//
// One step is a wave: `requests_per_step` requests submitted, then every one
// answered. The server measures what a server's user asks about (figures()):
// requests/s and the p50 and p99 latency (submission to answer read), over
// the steps after the first.
//
// A policy's header (<policy>.h), or a generic body (tensor_ptr.h: handles that
// own their references; collecting.h: a policy that collects), is the idiom for the three
// places a tensor is touched — made on the submitter, used and handed on by a
// worker, read and given back by the responder — and for its threads; the
// queues, threads and figures are ServerCore's, shared by all:
//
//   serve::ServeConfig config;
//   config.workers = 4;
//   const serve::ServeData data = serve::make_data(config);
//   serve::ScopeServer<Onednn> server(data);
//   for (int i = 0; i < 10; ++i) server.step();   // 10 waves of requests
//   server.finish();                              // threads joined, every tensor given back
//
// Threads: each worker runs its ops on `intra_op_threads` threads (1 by
// default: a server's parallelism is across requests; W workers each asking
// for all the cores would fight over them). The server sets custody's thread
// count while it runs and puts the previous one back in finish().

#ifndef CUSTODY_WORKLOADS_SERVE_SERVE_H_
#define CUSTODY_WORKLOADS_SERVE_SERVE_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "core/shape.h"
#include "workloads/mlp/mlp.h"
#include "workloads/workload.h"

namespace custody::workloads::serve {

struct ServeConfig {
  int workers = 2;
  int64_t requests_per_step = 32;  // one step: a wave of requests, submitted then answered
  int64_t batch = 16;              // rows of one request's input
  int64_t distinct_inputs = 64;    // request i sends input i % distinct_inputs
  int intra_op_threads = 1;        // threads each worker's ops run on
  uint32_t seed = 7;
  mlp::MlpConfig model;            // the model's sizes and initial weights (mlp::make_data)
};

struct ServeData {
  ServeConfig config;
  mlp::MlpData model;                       // its w1, b1, w2, b2 are the served weights
  std::vector<std::vector<float>> inputs;   // distinct_inputs x [batch, features]
};

ServeData make_data(const ServeConfig& config);

// What the responder read of one request's output.
struct Answer {
  std::vector<float> probabilities;  // [batch, classes]
  std::vector<int64_t> classes;      // the argmax of each row
  bool operator==(const Answer&) const = default;
};
Answer read_answer(std::vector<float> probabilities, int64_t classes);

// The parts of a server that do not depend on the tensor type: the data, the
// bookkeeping of answers and latencies, the figures, the thread count.
class Server : public Runner {
 public:
  using Clock = std::chrono::steady_clock;

  // The sum of the last step's answers' probabilities weighted by class, in
  // request order (the same under any thread schedule).
  double metric() override;
  // requests_per_s, p50_ms, p99_ms, workers: over the steps after the first.
  std::vector<Figure> figures() const override;
  // Every answer so far, by request id (valid between steps).
  const std::vector<Answer>& answers() const { return answers_; }
  const ServeData& data() const { return d_; }
  ~Server() override;

 protected:
  explicit Server(const ServeData& d);

  const std::vector<float>& input(int64_t id) const {
    return d_.inputs[static_cast<size_t>(id % d_.config.distinct_inputs)];
  }
  Dims input_shape() const { return Dims{d_.config.batch, d_.config.model.features}; }

  // The submitter: ids [first, first + requests_per_step) of this step.
  int64_t begin_step();
  // The responder: one request done (or failed: its error is rethrown by end_step()).
  void answered(int64_t id, std::vector<float> probabilities, Clock::time_point submitted);
  void failed(int64_t id, std::exception_ptr error);
  // The submitter: waits for every answer of the step, then records it.
  void end_step(int64_t first, Clock::time_point started);
  // Puts custody's thread count back (finish()).
  void restore_threads();

 private:
  const ServeData& d_;
  int previous_threads_ = 0;
  bool threads_restored_ = false;
  int64_t next_id_ = 0, steps_ = 0;
  double measured_s_ = 0;           // wall time of the steps after the first
  int64_t measured_requests_ = 0;
  std::vector<double> latencies_ms_;  // of the steps after the first
  std::vector<Answer> answers_;
  std::mutex mu_;
  std::condition_variable cv_;
  int64_t answered_ = 0;                              // guarded by mu_
  std::vector<std::pair<int64_t, double>> pending_;   // id, latency (ms); guarded by mu_
  std::exception_ptr error_;                          // guarded by mu_
};

// A queue between threads; pop() waits, and returns nothing once closed and empty.
// `Alloc` is where the queued items live (gc: memory its collector scans).
template <class Item, class Alloc>
class BlockingQueue {
 public:
  void push(Item item) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      items_.push_back(std::move(item));
    }
    cv_.notify_one();
  }
  std::optional<Item> pop() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return closed_ || !items_.empty(); });
    if (items_.empty()) return std::nullopt;
    std::optional<Item> item(std::move(items_.front()));
    items_.pop_front();
    return item;
  }
  void close() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      closed_ = true;
    }
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Item, Alloc> items_;
  bool closed_ = false;
};

// What an idiom (<policy>.h) has unless it says otherwise: nothing to set up
// per thread or per run, and queues in ordinary memory.
struct DefaultIdiom {
  struct Thread {};  // made at the start of each worker and the responder thread
  struct Session {   // made with the server, from its RunOptions
    explicit Session(const RunOptions&) {}
    void after_step() {}
    void after_finish() {}
  };
  template <class Item>
  using Allocator = std::allocator<Item>;
};

// The server of one idiom. `Idiom` names its tensor and model types and the three places:
//   static Tensor submit(const std::vector<float>& x, IntSpan shape);  // the submitting thread
//   static Tensor work(const Model& m, Tensor input);                  // a worker: input in, output out
//   static std::vector<float> respond(Tensor output);                  // the responder
// plus Thread, Session and Allocator (DefaultIdiom's, or its own).
template <class Idiom>
class ServerCore : public Server {
  using T = typename Idiom::Tensor;
  using Model = typename Idiom::Model;
  struct Request {
    int64_t id;
    T tensor;  // the input, then the output
    Clock::time_point submitted;
  };
  using Queue = BlockingQueue<Request, typename Idiom::template Allocator<Request>>;

 public:
  explicit ServerCore(const ServeData& d, const RunOptions& o = {})
      : Server(d), session_(o), model_(std::make_unique<Model>(d.model)) {
    for (int i = 0; i < d.config.workers; ++i) threads_.emplace_back([this] { work_loop(); });
    threads_.emplace_back([this] { respond_loop(); });
  }
  ~ServerCore() override { finish(); }

  void step() override {
    const Clock::time_point started = Clock::now();
    const int64_t first = begin_step();
    for (int64_t id = first; id < first + data().config.requests_per_step; ++id) {
      requests_->push(Request{id, Idiom::submit(input(id), input_shape()), Clock::now()});
    }
    end_step(first, started);
    session_.after_step();
  }

  void finish() override {
    if (finished_) return;
    finished_ = true;
    requests_->close();
    for (int i = 0; i < data().config.workers; ++i) threads_[static_cast<size_t>(i)].join();
    responses_->close();
    threads_.back().join();
    // The queues go before the session's last word (gc: a collection): a slot
    // already popped may still hold a handle's bytes (gc's handles are plain
    // pointers), which would keep that tensor alive through it.
    requests_.reset();
    responses_.reset();
    model_.reset();
    restore_threads();
    session_.after_finish();
  }

 private:
  void work_loop() {
    [[maybe_unused]] typename Idiom::Thread thread;
    while (std::optional<Request> r = requests_->pop()) {
      try {
        // Its own statement: work()'s parameter (the input) is destroyed at the end of the full
        // expression that calls it, so before the output is handed on.
        T out = Idiom::work(*model_, std::move(r->tensor));
        responses_->push(Request{r->id, std::move(out), r->submitted});
      } catch (...) {
        failed(r->id, std::current_exception());
      }
    }
  }
  void respond_loop() {
    [[maybe_unused]] typename Idiom::Thread thread;
    while (std::optional<Request> r = responses_->pop()) {
      try {
        std::vector<float> probabilities = Idiom::respond(std::move(r->tensor));  // released: then answered
        answered(r->id, std::move(probabilities), r->submitted);
      } catch (...) {
        failed(r->id, std::current_exception());
      }
    }
  }

  typename Idiom::Session session_;
  std::unique_ptr<Model> model_;
  std::optional<Queue> requests_{std::in_place}, responses_{std::in_place};
  std::vector<std::thread> threads_;  // the workers, then the responder
  bool finished_ = false;
};

// The same server in plain libtorch (serve_libtorch.cc): the compare tool's peer.
std::unique_ptr<Server> make_libtorch_server(const ServeData& data);

}  // namespace custody::workloads::serve

#endif  // CUSTODY_WORKLOADS_SERVE_SERVE_H_
