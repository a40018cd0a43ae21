// Copyright 2026 The custody Authors.

#include "core/storage.h"

#include "absl/strings/str_cat.h"

namespace custody {

std::string Device::str() const {
  switch (type_) {
    case DeviceType::kCPU:
      return "cpu";
    case DeviceType::kCUDA:
      return absl::StrCat("cuda:", index_);
    case DeviceType::kOpaque:
      return absl::StrCat("opaque:", index_);
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
