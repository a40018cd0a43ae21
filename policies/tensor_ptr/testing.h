// Copyright 2026 The custody Authors.
//
// policies/tensor_ptr/testing.h — the tensor_ptr policy's test idiom, `PolicyIdiom<tensor_ptr::Policy>`
// (core/policy_idiom.h): what surrounds every test body of this
// policy, in the conformance matrix and in any other test.

#ifndef CUSTODY_POLICIES_TENSOR_PTR_TESTING_H_
#define CUSTODY_POLICIES_TENSOR_PTR_TESTING_H_

#include <cstdint>
#include <mutex>
#include <optional>
#include <utility>

#include "policies/tensor_ptr/tensor_ptr.h"
#include "core/policy_idiom.h"

namespace custody {

// Nothing around the body: handles give their references back as they go.
template <>
struct PolicyIdiom<tensor_ptr::Policy> : DefaultPolicyIdiom {
  // The stress test: shared handles, also across threads through a mailbox (one per tensor type T,
  // shared by the threads on T): each iteration leaves full({8}, thread_id) and takes the letter
  // the previous one (this thread's or another's) left, whose sum must be 8 * its sender's id.
  template <class T>
  struct StressThread : StressThreadDefaults {
    struct Letter {
      int from = 0;
      T tensor;
    };
    static inline std::mutex mailbox_mu;
    static inline std::optional<Letter> mailbox;

    template <class Ops>
    bool iteration(int thread_id, int64_t /*i*/, Ops&& ops) {
      ops();
      T mine = T::full({8}, static_cast<float>(thread_id));
      std::optional<Letter> theirs;
      {
        std::lock_guard<std::mutex> lock(mailbox_mu);
        theirs = std::move(mailbox);
        mailbox = Letter{thread_id, mine};  // shared with whichever thread takes it
      }
      return !theirs.has_value() ||
             theirs->tensor.sum().template item<float>() == 8.0f * static_cast<float>(theirs->from);
    }
    // The last letter goes back.
    static void end_of_run() {
      std::lock_guard<std::mutex> lock(mailbox_mu);
      mailbox.reset();
    }
  };
};

}  // namespace custody

#endif  // CUSTODY_POLICIES_TENSOR_PTR_TESTING_H_
