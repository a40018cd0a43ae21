// Links and runs the Abseil pieces custody uses: Status/StatusOr, StrFormat/StrCat, InlinedVector,
// flat_hash_map, Mutex, GetStackTrace/Symbolize, Cord, Time.
#include <string>
#include <thread>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/debugging/stacktrace.h"
#include "absl/debugging/symbolize.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"

namespace {

absl::StatusOr<int> Half(int x) {
  if (x % 2 != 0) return absl::InvalidArgumentError(absl::StrFormat("%d is odd", x));
  return x / 2;
}

TEST(AbslSmoke, StatusStrings) {
  EXPECT_EQ(*Half(8), 4);
  absl::StatusOr<int> odd = Half(3);
  ASSERT_FALSE(odd.ok());
  EXPECT_EQ(odd.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(odd.status().message(), "3 is odd");
  absl::Status s = odd.status();
  s.SetPayload("custody", absl::Cord("payload"));
  EXPECT_EQ(std::string(*s.GetPayload("custody")), "payload");
  EXPECT_EQ(absl::StrCat("a", 1, "b", 2.5), "a1b2.5");
}

TEST(AbslSmoke, Containers) {
  absl::InlinedVector<int64_t, 6> sizes = {2, 3, 4, 5, 6, 7, 8};
  EXPECT_EQ(sizes.size(), 7u);
  absl::flat_hash_map<std::string, int> m;
  for (int i = 0; i < 100; ++i) m[absl::StrCat("k", i)] = i;
  EXPECT_EQ(m.at("k42"), 42);
}

TEST(AbslSmoke, MutexAndStackTrace) {
  absl::Mutex mu;
  int guarded = 0;
  {
    absl::MutexLock lock(&mu);
    ++guarded;
  }
  EXPECT_EQ(guarded, 1);
  void* frames[16];
  int depth = absl::GetStackTrace(frames, 16, 0);
  EXPECT_GT(depth, 0);
  char name[256];
  // Symbolize may fail on stripped frames; it must link and not crash.
  (void)absl::Symbolize(frames[0], name, sizeof name);
  EXPECT_GE(absl::Now(), absl::UnixEpoch());
}

// Under --config=tsan this checks that absl::Mutex/CondVar/Notification synchronization is visible
// to TSan (//third_party/absl_tsan): without it, both tests report data races.
TEST(AbslSmoke, MutexGuardsDataAcrossThreads) {
  absl::Mutex mu;
  long counter = 0;  // guarded by mu
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 1000; ++i) {
        absl::MutexLock lock(&mu);
        ++counter;
      }
    });
  }
  for (auto& t : threads) t.join();
  absl::MutexLock lock(&mu);
  mu.Await(absl::Condition(+[](long* c) { return *c == 4000; }, &counter));
  EXPECT_EQ(counter, 4000);
}

TEST(AbslSmoke, NotificationPublishesData) {
  std::string message;  // written before Notify, read after WaitForNotification
  absl::Notification ready;
  std::thread producer([&] {
    message = "hello";
    ready.Notify();
  });
  ready.WaitForNotification();
  EXPECT_EQ(message, "hello");
  producer.join();
}

}  // namespace

int main(int argc, char** argv) {
  absl::InitializeSymbolizer(argv[0]);
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
