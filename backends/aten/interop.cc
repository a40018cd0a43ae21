// Copyright 2026 The custody Authors.
//
// backends/aten/interop.cc — to_aten / from_aten (see interop.h for the
// contracts and the ownership notes).

#include "backends/aten/interop.h"

#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "backends/aten/internal/aten_dtype.h"
#include "core/error.h"

namespace custody {
namespace {

// ---- to_aten: libtorch holds one reference on our Storage ----------------------

// The context of a DataPtr that to_aten made: one reference on our Storage,
// and the MemoryStats of the backend that owns it (to recognise round trips).
struct OurStorageRef {
  Ref<Storage> storage;
  MemoryStats* stats;
};

// The DataPtr deleter: runs once, when libtorch frees the StorageImpl.
void release_our_storage(void* ctx) { delete static_cast<OurStorageRef*>(ctx); }

// ---- from_aten: our Storage holds one reference on libtorch's StorageImpl ------

// Owned by the deleter of a Storage that from_aten made.
struct AtenStorageRef {
  c10::Storage storage;
  const Storage* ours = nullptr;  // the Storage whose deleter owns this
};

// Our Storages made by from_aten -> libtorch's StorageImpl they hold, so that
// to_aten of them can hand back that very StorageImpl (Note [Round trips keep
// one storage]). An entry lives exactly as long as the Storage it names: it is
// added right after the Storage is made and erased by its deleter, which runs
// before the Storage's memory can be reused. Lookups come from to_aten, whose
// caller holds a reference on the Storage, so the StorageImpl is alive then.
class BorrowedRegistry {
 public:
  // Also pins `theirs` (Note [Pinned storage]), under the lock so that
  // concurrent from_aten calls on one StorageImpl do not race on the flag.
  void add(const Storage* ours, c10::StorageImpl* theirs) {
    absl::MutexLock lock(&mu_);
    if (theirs->resizable()) theirs->set_resizable(false);
    map_[ours] = theirs;
  }
  void erase(const Storage* ours) {
    absl::MutexLock lock(&mu_);
    map_.erase(ours);
  }
  // A new reference on the StorageImpl behind `ours`, or an empty optional.
  std::optional<c10::Storage> find(const Storage* ours) {
    absl::MutexLock lock(&mu_);
    auto it = map_.find(ours);
    if (it == map_.end()) return std::nullopt;
    return c10::Storage(c10::intrusive_ptr<c10::StorageImpl>::unsafe_reclaim_from_nonowning(it->second));
  }

 private:
  absl::Mutex mu_;
  absl::flat_hash_map<const Storage*, c10::StorageImpl*> map_ ABSL_GUARDED_BY(mu_);
};

BorrowedRegistry& registry() {
  static BorrowedRegistry* r = new BorrowedRegistry;
  return *r;
}

IntSpan span_of(at::IntArrayRef a) { return IntSpan(a.data(), a.size()); }

std::string layout_name(at::Layout layout) {
  std::ostringstream os;
  os << layout;
  return os.str();
}

}  // namespace

at::ScalarType to_aten_dtype(ScalarType dtype) {
  if (is_barebones_unsigned(dtype)) {
    throw DTypeError(absl::StrFormat(
        "to_aten: %s has no libtorch 1.13 dtype (libtorch added uint16/32/64 in 2.3); cast it "
        "first, e.g. t.to(ScalarType::Long)", dtype_name(dtype)));
  }
  return aten_internal::to_aten_dtype(dtype);
}

ScalarType from_aten_dtype(at::ScalarType dtype) {
  if (const std::optional<ScalarType> ours = aten_internal::from_aten_dtype(dtype)) return *ours;
  throw DTypeError(absl::StrFormat(
      "from_aten: libtorch dtype %s is not supported by custody (supported: float32, float64, "
      "float16, bfloat16, int8, int16, int32, int64, uint8, bool); convert it first, e.g. "
      "x.to(at::kFloat)", aten_internal::aten_dtype_name(dtype)));
}

namespace aten_internal {

at::Tensor share_to_aten(const TensorImpl& t) {
  const Ref<Storage>& ours = t.storage();
  if (!ours->device().is_cpu()) {
    throw DeviceError(absl::StrFormat(
        "to_aten: the tensor (shape %s, %s) lives on %s; only host memory can be shared with a "
        "libtorch CPU tensor: copy it with to<custody::Aten>() first",
        shape_str(t.sizes()), dtype_name(t.dtype()), ours->device().str()));
  }
  const caffe2::TypeMeta meta = c10::scalarTypeToTypeMeta(custody::to_aten_dtype(t.dtype()));
  // A round trip: the Storage came from from_aten; share libtorch's own StorageImpl.
  std::optional<c10::Storage> storage = registry().find(ours.get());
  if (!storage.has_value()) {
    // Note [Interop ownership]: the DataPtr's context is one reference on our Storage.
    auto ctx = std::make_unique<OurStorageRef>(OurStorageRef{ours, t.stats()});
    c10::DataPtr data(ours->data(), ctx.get(), &release_our_storage, c10::Device(c10::kCPU));
    ctx.release();  // owned by `data` from here on, even if what follows throws
    storage.emplace(c10::Storage::use_byte_size_t(), ours->nbytes(), std::move(data),
                    /*allocator=*/nullptr, /*resizable=*/false);  // Note [Pinned storage]
  }
  at::Tensor r = at::detail::make_tensor<c10::TensorImpl>(
      std::move(*storage), c10::DispatchKeySet(c10::DispatchKey::CPU), meta);
  const IntSpan sizes = t.sizes(), strides = t.strides();
  r.unsafeGetTensorImpl()->set_sizes_and_strides(at::IntArrayRef(sizes.data(), sizes.size()),
                                                 at::IntArrayRef(strides.data(), strides.size()));
  r.unsafeGetTensorImpl()->set_storage_offset(t.storage_offset());
  return r;
}

ImplRef share_from_aten(const at::Tensor& x, Device device, MemoryStats* stats,
                        TensorShapeDynamism dyn) {
  if (!x.defined()) {
    throw InvalidArgument(
        "from_aten: the at::Tensor is undefined (default-constructed or reset); pass a tensor "
        "that holds data");
  }
  if (!device.is_cpu()) {
    throw DeviceError(absl::StrFormat(
        "from_aten: the target backend's memory is on %s, but an at::Tensor's CPU memory can only "
        "be shared with a host backend (custody::Aten, custody::Onednn)", device.str()));
  }
  if (x.layout() != at::kStrided || !x.has_storage()) {
    throw InvalidArgument(absl::StrFormat(
        "from_aten: only strided tensors with a storage can be shared, but this one has layout "
        "%s; call x.to_dense() first", layout_name(x.layout())));
  }
  if (!x.device().is_cpu()) {
    throw DeviceError(absl::StrFormat(
        "from_aten: the at::Tensor is on %s; only CPU tensors can be shared: call x.cpu() first",
        x.device().str()));
  }
  const ScalarType dtype = custody::from_aten_dtype(x.scalar_type());  // DTypeError naming the dtype
  if (x.is_neg()) {
    throw InvalidArgument(
        "from_aten: the at::Tensor is a lazily negated view (is_neg()): its memory does not hold "
        "its values; call x.resolve_neg() first");
  }
  const c10::Storage& theirs = x.storage();
  // A round trip: the memory is one of our Storages lent by to_aten; share it directly.
  if (theirs.data_ptr().get_deleter() == &release_our_storage) {
    const auto* ref = static_cast<const OurStorageRef*>(theirs.data_ptr().get_context());
    if (ref->stats == stats && ref->storage->device() == device) {
      return TensorImpl::Create(ref->storage, x.storage_offset(), span_of(x.sizes()),
                                span_of(x.strides()), dtype, dyn, stats);
    }
  }
  // Note [Interop ownership]: our Storage's deleter owns one reference on theirs.
  auto keep = std::make_unique<AtenStorageRef>(AtenStorageRef{theirs, nullptr});
  AtenStorageRef* k = keep.get();
  Ref<Storage> ours = Storage::Borrowed(theirs.data(), theirs.nbytes(), device, stats,
                                        [k](void*) {  // once, when our last view goes
                                          registry().erase(k->ours);
                                          delete k;  // drops the reference on the StorageImpl
                                        });
  keep.release();  // owned by the deleter from here on
  k->ours = ours.get();
  registry().add(k->ours, k->storage.unsafeGetStorageImpl());  // and pins it
  return TensorImpl::Create(std::move(ours), x.storage_offset(), span_of(x.sizes()),
                            span_of(x.strides()), dtype, dyn, stats);
}

}  // namespace aten_internal
}  // namespace custody
