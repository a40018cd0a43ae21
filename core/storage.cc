// Copyright 2026 The custody Authors.

#include "core/storage.h"

#include <atomic>

#include "absl/strings/str_cat.h"

namespace custody {

namespace {
std::atomic<const char*> g_private_use1_name{"privateuse1"};
}  // namespace

void set_private_use1_name(const char* name) { g_private_use1_name.store(name, std::memory_order_release); }
const char* private_use1_name() { return g_private_use1_name.load(std::memory_order_acquire); }

std::string Device::str() const {
  switch (type_) {
    case DeviceType::kCPU:
      return "cpu";
    case DeviceType::kCUDA:
      return absl::StrCat("cuda:", index_);
    case DeviceType::kPrivateUse1:
      return absl::StrCat(private_use1_name(), ":", index_);
  }
  return absl::StrCat("device", static_cast<int>(type_), ":", index_);
}

Storage::Storage(void* data, size_t nbytes, Device device, MemoryStats* stats, FreeFn free_fn)
    : data_(data), nbytes_(nbytes), device_(device), stats_(stats), free_fn_(free_fn) {
  if (stats_) stats_->on_storage_created();
}

Storage::Storage(void* data, size_t nbytes, Device device, MemoryStats* stats, Deleter deleter)
    : data_(data), nbytes_(nbytes), device_(device), stats_(stats), free_fn_(nullptr),
      deleter_(std::move(deleter)) {
  if (stats_) stats_->on_storage_created();
}

Storage::~Storage() {
  if (free_fn_) {
    free_fn_(data_, nbytes_);
  } else if (deleter_) {
    deleter_(data_);
  }
  if (stats_) stats_->on_storage_destroyed();
}

Ref<Storage> Storage::Owning(void* data, size_t nbytes, Device device, MemoryStats* stats,
                             FreeFn free_fn) {
  return Ref<Storage>(kAdopt, new Storage(data, nbytes, device, stats, free_fn));
}

Ref<Storage> Storage::Borrowed(void* data, size_t nbytes, Device device, MemoryStats* stats,
                               Deleter deleter) {
  return Ref<Storage>(kAdopt, new Storage(data, nbytes, device, stats, std::move(deleter)));
}

// Storage::Destroy is in tensor_impl.cc, beside the TensorBlock it may live in.

}  // namespace custody
