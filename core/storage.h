// Copyright 2026 The custody Authors.
//
// core/storage.h — `Device` and `Storage`, a refcounted block of backend memory.
//
// Note [Storage ownership]
// ~~~~~~~~~~~~~~~~~~~~~~~~
// A Storage is either *owning* (memory came from a backend's allocate(); it goes
// back through the backend's free function) or *borrowed* (`from_blob`: memory
// belongs to the user; the user's deleter, if any, runs exactly once when the
// last reference goes). Views share one Storage; each TensorImpl holds exactly
// one reference on its Storage, so the memory outlives the last view (G5).
// Core never dereferences `data()`: it may be device memory.

#ifndef CUSTODY_CORE_STORAGE_H_
#define CUSTODY_CORE_STORAGE_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "core/refcount.h"
#include "core/stats.h"

namespace custody {

// kPrivateUse1: a device type for a backend core does not know, as c10's
// PrivateUse1 (backends/opaque, the test backend, uses it); the backend names
// it for printing with set_private_use1_name(). CPU and CUDA are ExecuTorch's
// spellings of the same values. kNumDeviceTypes counts the values, for
// per-device-type tables (the gc policy's pressure counters).
enum class DeviceType : uint8_t {
  kCPU = 0,
  kCUDA = 1,
  kPrivateUse1 = 2,
  CPU = kCPU,
  CUDA = kCUDA,
};
inline constexpr int kNumDeviceTypes = 3;

// The name Device::str() prints for kPrivateUse1 ("privateuse1" until a backend
// sets one; c10's register_privateuse1_backend). Set once, at start-up.
void set_private_use1_name(const char* name);
const char* private_use1_name();

// Where a tensor's memory lives. `type()` and `index()` are methods, as
// ExecuTorch's and c10's Device have them.
class Device {
 public:
  constexpr Device(DeviceType type = DeviceType::kCPU, int index = 0) : type_(type), index_(index) {}
  constexpr DeviceType type() const { return type_; }
  constexpr int index() const { return index_; }
  constexpr bool is_cpu() const { return type_ == DeviceType::kCPU; }
  std::string str() const;  // "cpu", "cuda:0", "<private_use1_name()>:0"
  friend bool operator==(const Device&, const Device&) = default;

 private:
  DeviceType type_;
  int index_;
};

namespace internal {
struct TensorBlock;
}  // namespace internal

class Storage final : public RefCounted {
 public:
  using FreeFn = void (*)(void* data, size_t nbytes);
  using Deleter = std::function<void(void*)>;

  // Memory from a backend allocation, given back with `free_fn(data, nbytes)`.
  static Ref<Storage> Owning(void* data, size_t nbytes, Device device, MemoryStats* stats,
                             FreeFn free_fn);
  // The user's memory; `deleter` (may be empty) runs once when the last reference goes.
  static Ref<Storage> Borrowed(void* data, size_t nbytes, Device device, MemoryStats* stats,
                               Deleter deleter);
  static void Destroy(Storage* s);

  void* data() const { return data_; }
  size_t nbytes() const { return nbytes_; }
  Device device() const { return device_; }
  // Note [Versions on the Storage]
  // ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
  // Every in-place op bumps the version of the Storage it writes. Views and
  // aliases share their Storage, so they share the counter, as PyTorch's views
  // share one VariableVersion. Autograd records the version of each tensor it
  // saves for backward and compares it when backward reads the tensor: a
  // tensor changed in place between the two is refused, never read stale
  // (core/autograd/node.h). Relaxed: a version is read by the thread that
  // runs backward after the forward happened-before it.
  uint64_t version() const { return version_.load(std::memory_order_relaxed); }
  void bump_version() const { version_.fetch_add(1, std::memory_order_relaxed); }

  // Records a kernel's use of this memory in the memory history, if recording.
  void note_use() const {
    if (stats_ != nullptr) stats_->on_use(data_);
  }
  // Records in the memory history that the autograd node `op` saved this memory.
  void note_saved(const char* op) const {
    if (stats_ != nullptr) stats_->on_saved(data_, op);
  }

 private:
  friend class TensorImpl;  // constructs one in a TensorBlock (Note [One allocation per tensor])
  Storage(void* data, size_t nbytes, Device device, MemoryStats* stats, FreeFn free_fn);
  Storage(void* data, size_t nbytes, Device device, MemoryStats* stats, Deleter deleter);
  ~Storage();

  internal::TensorBlock* block_ = nullptr;  // set when co-allocated with its first TensorImpl
  void* data_;
  size_t nbytes_;
  Device device_;
  MemoryStats* stats_;
  FreeFn free_fn_;
  Deleter deleter_;
  mutable std::atomic<uint64_t> version_{0};
};

}  // namespace custody

#endif  // CUSTODY_CORE_STORAGE_H_
