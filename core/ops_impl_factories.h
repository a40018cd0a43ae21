// Copyright 2026 The custody Authors.
//
// core/ops_impl_factories.h — the op layer's allocation and factories:
// allocate_with_retry (the backend's allocator, the reclaimers and one retry),
// the ops that make a tensor (empty, full, arange, random, randint, from_host,
// from_blob) and resize, which reallocates a growing DYNAMIC_UNBOUND tensor.
//
// Part of the definitions of internal::Ops<Backend>: include core/ops_impl.h.

#ifndef CUSTODY_CORE_OPS_IMPL_FACTORIES_H_
#define CUSTODY_CORE_OPS_IMPL_FACTORIES_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/optimization.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"
#include "core/error.h"
#include "core/ops.h"
#include "core/random.h"
#include "core/reclaim.h"

namespace custody::internal {

// ---- factories ---------------------------------------------------------------

// B::allocate, then, if it ran out of memory (ResourceExhausted), the
// registered reclaimers (core/reclaim.h) and one retry. Observers hear of
// every successful allocation. A final out-of-memory failure counts in
// num_ooms; any other failure (no device) is returned as it is.
template <class B>
absl::StatusOr<void*> allocate_once(size_t nbytes) {
  if (ABSL_PREDICT_FALSE(injected_allocation_failure())) {  // Note [Allocation-failure injection]
    return absl::ResourceExhaustedError(
        "injected allocation failure (custody::inject_allocation_failure, a test switch)");
  }
  return B::allocate(nbytes);
}

template <class B>
absl::StatusOr<void*> allocate_with_retry(size_t nbytes) {
  absl::StatusOr<void*> p = allocate_once<B>(nbytes);
  const auto out_of_memory = [&p] {
    return !p.ok() && p.status().code() == absl::StatusCode::kResourceExhausted;
  };
  if (out_of_memory() && run_reclaimers(B::device(), nbytes)) {
    p = allocate_once<B>(nbytes);
    if (p.ok()) B::stats().on_retry();
  }
  if (!p.ok()) {
    if (out_of_memory()) B::stats().on_oom();
    return p;
  }
  notify_alloc(B::device(), nbytes);
  return p;
}


// B::allocate via allocate_with_retry, or an OutOfMemoryError naming the op,
// the request and the backend.
template <class B>
void* allocate_or_throw(int64_t nbytes, IntSpan sizes, ScalarType dtype, const char* op) {
  const OpScope allocating(op);  // the memory history records which op allocated
  absl::StatusOr<void*> p = allocate_with_retry<B>(static_cast<size_t>(nbytes));
  if (ABSL_PREDICT_FALSE(!p.ok())) {
    const std::string message = absl::StrFormat(
        "%s: could not allocate %d bytes for a %s tensor of shape %s on %s: %s", op, nbytes,
        dtype_name(dtype), shape_str(sizes), B::name, p.status().message());
    if (p.status().code() == absl::StatusCode::kResourceExhausted) throw OutOfMemoryError(message);
    // Not a lack of memory (e.g. no device): the backend's error type, with the context.
    absl::Status s(p.status().code(), message);
    p.status().ForEachPayload(
        [&s](absl::string_view url, const absl::Cord& payload) { s.SetPayload(url, payload); });
    ThrowError(s);
  }
  return *p;
}

[[noreturn]] inline void throw_byte_overflow(IntSpan sizes, ScalarType dtype, const char* op) {
  throw ShapeError(absl::StrFormat("%s: shape %s of %s overflows the addressable byte count", op,
                                   shape_str(sizes), dtype_name(dtype)));
}

template <class B>
ImplRef Ops<B>::empty_strided(IntSpan sizes, IntSpan strides, ScalarType dtype,
                              TensorShapeDynamism dyn, const char* op) {
  if (sizes.size() != strides.size()) {
    throw ShapeError(absl::StrFormat("%s: sizes %s and strides %s have different lengths", op,
                                     shape_str(sizes), shape_str(strides)));
  }
  ValueOrThrow(checked_numel(sizes, op));
  const int64_t extent = ValueOrThrow(storage_extent(sizes, strides, op));
  int64_t nbytes;
  if (__builtin_mul_overflow(extent, static_cast<int64_t>(element_size(dtype)), &nbytes)) {
    throw_byte_overflow(sizes, dtype, op);
  }
  void* p = allocate_or_throw<B>(nbytes, sizes, dtype, op);
  return TensorImpl::CreateOwning(p, static_cast<size_t>(nbytes), B::device(), &B::deallocate, sizes,
                                  strides, dtype, dyn, &B::stats());
}

// Contiguous: no strides to validate (the storage extent is numel), and the
// TensorImpl writes its strides in place. Every op's output comes from here.
template <class B>
ImplRef Ops<B>::empty(IntSpan sizes, ScalarType dtype, TensorShapeDynamism dyn, const char* op) {
  int64_t numel;
  if (!positive_numel(sizes, &numel)) [[unlikely]] numel = ValueOrThrow(checked_numel(sizes, op));
  int64_t nbytes;
  if (__builtin_mul_overflow(numel, static_cast<int64_t>(element_size(dtype)), &nbytes)) {
    throw_byte_overflow(sizes, dtype, op);
  }
  void* p = allocate_or_throw<B>(nbytes, sizes, dtype, op);
  return TensorImpl::CreateOwningContiguous(p, static_cast<size_t>(nbytes), B::device(),
                                            &B::deallocate, sizes, numel, dtype, dyn, &B::stats());
}

template <class B>
ImplRef Ops<B>::full_strided(IntSpan sizes, IntSpan strides, const Scalar& value, ScalarType dtype,
                             TensorShapeDynamism dyn, const char* op) {
  ImplRef t = empty_strided(sizes, strides, dtype, dyn, op);
  fill_(*t, value, op);
  return t;
}

template <class B>
ImplRef Ops<B>::full(IntSpan sizes, const Scalar& value, ScalarType dtype, TensorShapeDynamism dyn,
                     const char* op) {
  return full_strided(sizes, contiguous_strides(sizes), value, dtype, dyn, op);
}

template <class B>
ImplRef Ops<B>::arange(const Scalar& start, const Scalar& end, const Scalar& step,
                       std::optional<ScalarType> dtype) {
  const bool any_float = start.is_floating_point() || end.is_floating_point() ||
                         step.is_floating_point();
  const ScalarType dt = dtype.value_or(any_float ? kDefaultFloat : kDefaultInt);
  check_computable("arange", dt);
  const double s = start.to_double(), e = end.to_double(), st = step.to_double();
  if (!std::isfinite(st)) {
    throw InvalidArgument(absl::StrFormat("arange: step must be finite, but got %s", step.str()));
  }
  if (!std::isfinite(s) || !std::isfinite(e)) {
    throw InvalidArgument(absl::StrFormat("arange: unsupported range %s -> %s", start.str(), end.str()));
  }
  // An integer dtype computes in int64, as ATen: bounds and step must be int64
  // values (a fraction truncates), the step nonzero as an int64, the length
  // taken from the exact int64 difference.
  const bool integral = is_integral(dt, /*include_bool=*/true);
  int64_t si = 0, ei = 0, sti = 0;
  if (integral) {
    for (const Scalar* v : {&start, &end, &step}) check_fill_value(*v, ScalarType::Long, "arange");
    si = start.to<int64_t>();
    ei = end.to<int64_t>();
    sti = step.to<int64_t>();
  }
  if (integral ? sti == 0 : st == 0) {
    throw InvalidArgument(absl::StrFormat("arange: step must be nonzero, but got %s%s", step.str(),
                                          integral ? " as an integer" : ""));
  }
  const bool up = integral ? sti > 0 : st > 0;
  if ((up && (integral ? ei < si : e < s)) || (!up && (integral ? ei > si : e > s))) {
    throw InvalidArgument(absl::StrFormat(
        "arange: upper bound %s and lower bound %s are inconsistent with step sign %s", end.str(),
        start.str(), step.str()));
  }
  double n_real;
  if (integral) {
    // |end - start| in uint64: exact for any two int64 values.
    const uint64_t span = up ? static_cast<uint64_t>(ei) - static_cast<uint64_t>(si)
                             : static_cast<uint64_t>(si) - static_cast<uint64_t>(ei);
    const uint64_t mag = sti > 0 ? static_cast<uint64_t>(sti) : 0 - static_cast<uint64_t>(sti);
    n_real = static_cast<double>(span / mag + (span % mag != 0 ? 1 : 0));
  } else {
    n_real = std::ceil((e - s) / st);
  }
  if (n_real > static_cast<double>(std::numeric_limits<int32_t>::max()) * 64) {
    throw ShapeError(absl::StrFormat("arange: %s -> %s step %s has too many elements", start.str(),
                                     end.str(), step.str()));
  }
  const int64_t n = static_cast<int64_t>(n_real);
  const Dims sizes{n};
  // The tensor first: a length past memory is the backend's OutOfMemoryError,
  // before any host buffer. The values go over in chunks of a fixed host buffer.
  ImplRef out = empty(sizes, dt, TensorShapeDynamism::DYNAMIC_BOUND, "arange");
  visit_compute_dtype(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using H = HostElement<T>;
    constexpr int64_t kChunk = 16384;
    std::vector<H> host(static_cast<size_t>(std::min(n, kChunk)));
    for (int64_t begin = 0; begin < n; begin += kChunk) {
      const int64_t len = std::min(kChunk, n - begin);
      for (int64_t j = 0; j < len; ++j) {
        const int64_t i = begin + j;
        if constexpr (std::is_floating_point_v<T>) {
          host[j] = static_cast<T>(s + st * static_cast<double>(i));
        } else {
          // Within [start, end): no overflow; computed unsigned so no step can be UB.
          host[j] = static_cast<T>(static_cast<int64_t>(
              static_cast<uint64_t>(si) + static_cast<uint64_t>(sti) * static_cast<uint64_t>(i)));
        }
      }
      ThrowIfError(B::copy_from_host(static_cast<char*>(out->data()) + begin * sizeof(H), host.data(),
                                     static_cast<size_t>(len) * sizeof(H)));
    }
  });
  return out;
}

template <class B>
ImplRef Ops<B>::random(IntSpan sizes, IntSpan strides, ScalarType dtype, RandomDist dist, double low,
                       double high, TensorShapeDynamism dyn, const char* op) {
  check_computable(op, dtype);
  if (dist == RandomDist::kRandInt) {
    throw InvalidArgument(absl::StrFormat("%s: integers come from randint (exact int64 bounds)", op));
  }
  if (!is_floating_point(dtype)) {
    throw DTypeError(absl::StrFormat("%s: expected a floating point dtype but got %s", op,
                                     dtype_name(dtype)));
  }
  ImplRef t = empty_strided(sizes, strides, dtype, dyn, op);
  const auto stream = next_random_stream();
  RandomParams p{stream.seed, stream.offset, low, high};
  ThrowIfError(B::random(kernel_view(*t), dist, p));
  return t;
}

template <class B>
ImplRef Ops<B>::randint(IntSpan sizes, IntSpan strides, ScalarType dtype, int64_t low, int64_t high,
                        TensorShapeDynamism dyn, const char* op) {
  check_computable(op, dtype, /*takes_unsigned=*/true);
  if (low >= high) {
    throw InvalidArgument(
        absl::StrFormat("%s: expected low < high, but got low=%d and high=%d", op, low, high));
  }
  // Integral dtypes hold [min, max]; floating ones take any range.
  int64_t min = 0, max = 0;
  if (integer_range(dtype, &min, &max) && (low < min || high - 1 > max)) {  // high > low: no overflow
    throw InvalidArgument(absl::StrFormat(
        "%s: range [%d, %d) does not fit in %s (whose values are %d..%d)", op, low, high,
        dtype_name(dtype), min, max));
  }
  ImplRef t = empty_strided(sizes, strides, dtype, dyn, op);
  const auto stream = next_random_stream();
  RandomParams p;
  p.seed = stream.seed;
  p.offset = stream.offset;
  p.int_low = low;
  p.int_high = high;
  ThrowIfError(B::random(kernel_view(*t), RandomDist::kRandInt, p));
  return t;
}

template <class B>
ImplRef Ops<B>::from_host(const void* data, size_t nbytes, ScalarType dtype, IntSpan sizes,
                          TensorShapeDynamism dyn, const char* op) {
  const int64_t n = ValueOrThrow(checked_numel(sizes, op));
  if (static_cast<size_t>(n) * element_size(dtype) != nbytes) {
    throw InvalidArgument(absl::StrFormat(
        "%s: %d bytes of data do not match shape %s of %s (%d elements x %d bytes = %d)", op,
        nbytes, shape_str(sizes), dtype_name(dtype), n, element_size(dtype),
        static_cast<size_t>(n) * element_size(dtype)));
  }
  // Host data copied in is an input, unless the caller said what it is (a parameter's values).
  const CategoryScope input(internal::current_category == MemoryCategory::kUnknown ? MemoryCategory::kInput
                                                                                   : internal::current_category);
  ImplRef t = empty(sizes, dtype, dyn, op);
  if (nbytes > 0) ThrowIfError(B::copy_from_host(t->data(), data, nbytes));
  return t;
}

template <class B>
ImplRef Ops<B>::from_blob(void* data, IntSpan sizes, std::optional<IntSpan> strides, ScalarType dtype,
                          TensorShapeDynamism dyn, std::function<void(void*)> deleter,
                          const char* op, bool allow_null_data) {
  // A null pointer is fine for no elements (ATen's from_blob(nullptr, {0}) is an empty tensor).
  if (data == nullptr && !allow_null_data && ValueOrThrow(checked_numel(sizes, op)) != 0) {
    throw InvalidArgument(absl::StrFormat(
        "%s: data pointer is null (shape %s, %s); pass a valid buffer that outlives the tensor",
        op, shape_str(sizes), dtype_name(dtype)));
  }
  ValueOrThrow(checked_numel(sizes, op));
  // Kernels read elements as their type: memory not aligned to it would be undefined behaviour
  // in every loop (and a fault on some devices), so it is refused here, alike on every backend.
  if (reinterpret_cast<uintptr_t>(data) % element_size(dtype) != 0) {
    throw InvalidArgument(absl::StrFormat(
        "%s: data pointer %p is not aligned to %d bytes, as a %s tensor needs; copy the data to an "
        "aligned buffer (from_vector does)", op, data, element_size(dtype), dtype_name(dtype)));
  }
  const Dims st = strides ? Dims(strides->begin(), strides->end()) : contiguous_strides(sizes);
  if (st.size() != sizes.size()) {
    throw ShapeError(absl::StrFormat("%s: sizes %s and strides %s have different lengths", op,
                                     shape_str(sizes), shape_str(st)));
  }
  const int64_t extent = ValueOrThrow(storage_extent(sizes, st, op));
  Ref<Storage> storage = Storage::Borrowed(data, static_cast<size_t>(extent) * element_size(dtype),
                                           B::device(), &B::stats(), std::move(deleter));
  return TensorImpl::Create(std::move(storage), 0, sizes, st, dtype, dyn, &B::stats());
}

// ---- resize --------------------------------------------------------------------

template <class B>
absl::Status Ops<B>::resize(TensorImpl& t, IntSpan sizes) {
  if (static_cast<int64_t>(sizes.size()) != t.dim()) {
    return ShapeNotSupportedStatus("resize: the rank of a tensor is immutable: shape %s (rank %d) cannot become "
                       "%s (rank %d)", shape_str(t.sizes()), t.dim(), shape_str(sizes), sizes.size());
  }
  if (std::equal(sizes.begin(), sizes.end(), t.sizes().begin(), t.sizes().end())) {
    return absl::OkStatus();
  }
  auto numel = checked_numel(sizes, "resize");
  if (!numel.ok()) return numel.status();
  switch (t.shape_dynamism()) {
    case TensorShapeDynamism::STATIC:
      return ShapeNotSupportedStatus("resize: cannot resize a STATIC tensor of shape %s to %s; create it with "
                         "DYNAMIC_BOUND or DYNAMIC_UNBOUND dynamism", shape_str(t.sizes()),
                         shape_str(sizes));
    case TensorShapeDynamism::DYNAMIC_BOUND:
      if (*numel > t.capacity()) {
        return ShapeNotSupportedStatus("resize: a DYNAMIC_BOUND tensor with capacity %d elements cannot be "
                           "resized from %s to %s (%d elements)", t.capacity(),
                           shape_str(t.sizes()), shape_str(sizes), *numel);
      }
      break;
    case TensorShapeDynamism::DYNAMIC_UNBOUND:
      break;
  }
  if (!t.is_contiguous()) {
    return ShapeNotSupportedStatus("resize: only contiguous tensors can be resized (shape %s, strides %s)",
                       shape_str(t.sizes()), shape_str(t.strides()));
  }
  if (*numel > t.capacity()) {  // DYNAMIC_UNBOUND growth: reallocate and keep the old contents.
    int64_t signed_bytes;
    if (__builtin_mul_overflow(*numel, static_cast<int64_t>(t.element_size()), &signed_bytes)) {
      return ShapeStatus("resize: shape %s of %s overflows the addressable byte count", shape_str(sizes),
                         dtype_name(t.scalar_type()));
    }
    const size_t nbytes = static_cast<size_t>(signed_bytes);
    absl::StatusOr<void*> p = allocate_with_retry<B>(nbytes);
    if (!p.ok()) {
      return MakeStatus(ErrorKind::kOutOfMemory, absl::StatusCode::kResourceExhausted,
                        absl::StrFormat("resize: could not allocate %d bytes on %s", nbytes, B::name));
    }
    Ref<Storage> storage = Storage::Owning(*p, nbytes, B::device(), &B::stats(), &B::deallocate);
    if (t.nbytes() > 0 && t.storage()->data() != nullptr) {  // nothing to copy without data
      const int64_t bytes[] = {static_cast<int64_t>(t.nbytes())}, unit[] = {1};
      KernelView dst{*p, ScalarType::Byte, bytes, unit};
      KernelView src{t.data(), ScalarType::Byte, bytes, unit};
      CUSTODY_RETURN_IF_ERROR(B::copy(dst, src));
    }
    t.set_storage(std::move(storage), *numel);
  }
  t.set_sizes_contiguous(sizes, *numel);
  return absl::OkStatus();
}

}  // namespace custody::internal

#endif  // CUSTODY_CORE_OPS_IMPL_FACTORIES_H_
