// Copyright 2026 The custody Authors.
//
// core/ops_impl.h — definitions of internal::Ops<Backend> (declared in
// core/ops.h). Include this only in the one .cc per backend that explicitly
// instantiates `template struct custody::internal::Ops<ThatBackend>;`.

#ifndef CUSTODY_CORE_OPS_IMPL_H_
#define CUSTODY_CORE_OPS_IMPL_H_

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <new>
#include <numeric>

#include "absl/base/optimization.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/error.h"
#include "core/ops.h"
#include "core/reclaim.h"
#include "core/random.h"

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

// ---- copies and conversions ----------------------------------------------------

template <class B>
ImplRef Ops<B>::clone(const TensorImpl& t, const char* op) {
  ImplRef out = empty(t.sizes(), t.scalar_type(), t.shape_dynamism(), op);
  if (t.numel() > 0) ThrowIfError(B::copy(kernel_view(*out), kernel_view(t)));
  return out;
}

template <class B>
ImplRef Ops<B>::contiguous(const TensorImpl& t) {
  if (t.is_contiguous()) return retain(t);
  return clone(t, "contiguous");
}

template <class B>
ImplRef Ops<B>::to_dtype(const TensorImpl& t, ScalarType dtype, const char* op) {
  if (t.scalar_type() == dtype) return retain(t);
  ImplRef out = empty(t.sizes(), dtype, t.shape_dynamism(), op);
  if (t.numel() > 0) ThrowIfError(B::copy(kernel_view(*out), kernel_view(t)));
  return out;
}

template <class B>
ImplRef Ops<B>::reshape(const TensorImpl& t, IntSpan sizes) {
  const Dims inferred = ValueOrThrow(infer_size(sizes, t.numel(), "reshape"));
  Dims strides;
  if (compute_view_strides(t.sizes(), t.strides(), inferred, &strides)) {
    return make_view(t, inferred, strides, t.storage_offset());
  }
  ImplRef c = clone(t);
  return make_view(*c, inferred, contiguous_strides(inferred), 0);
}

template <class B>
ImplRef Ops<B>::flatten(const TensorImpl& t, int64_t start, int64_t end) {
  const Dims sizes = ValueOrThrow(flatten_sizes(t, start, end));
  return reshape(t, sizes);
}

template <class B>
std::vector<char> Ops<B>::to_host(const TensorImpl& t) {
  check_has_data(t, "to_host");
  ImplRef c = contiguous(t);
  c->storage()->note_use();
  std::vector<char> out(c->nbytes());
  if (!out.empty()) ThrowIfError(B::copy_to_host(out.data(), c->data(), out.size()));
  return out;
}

template <class B>
std::string Ops<B>::to_string(const TensorImpl& t) {
  std::vector<char> host = to_host(t);
  return format_tensor(t.scalar_type(), t.sizes(), host.data());
}

// ---- elementwise ------------------------------------------------------------

namespace detail {
// torch.result_type of two tensors: a 0-dim tensor takes part like a scalar,
// deciding the dtype only when it is of a higher category (bool < integral <
// floating) than the dimensioned operand (int32[3] + float64[] -> float64,
// but float32[3] + float64[] -> float32 and int32[3] + int64[] -> int32).
inline ScalarType result_type(const TensorImpl& a, const TensorImpl& b, const char* op) {
  if ((a.dim() == 0) == (b.dim() == 0)) return promote_types(a.scalar_type(), b.scalar_type(), op);
  const ScalarType dimmed = a.dim() == 0 ? b.scalar_type() : a.scalar_type();
  const ScalarType zero = a.dim() == 0 ? a.scalar_type() : b.scalar_type();
  if (is_floating_point(dimmed)) return dimmed;
  if (dimmed == ScalarType::Bool || is_floating_point(zero)) return promote_types(dimmed, zero, op);
  return dimmed;
}

// `b` is the other operand's dtype (a scalar's default dtype for tensor-scalar forms).
inline ScalarType binary_compute_dtype(BinaryOp op, ScalarType common, const char* name,
                                       ScalarType a, ScalarType b) {
  // ATen rejects subtraction whenever either operand is bool, whatever the result dtype.
  if (op == BinaryOp::kSub && (a == ScalarType::Bool || b == ScalarType::Bool)) {
    throw DTypeError(absl::StrFormat(
        "%s: subtraction with a bool operand (%s, %s) is not supported; use logical ops or "
        "cast with to(int64) first", name, dtype_name(a), dtype_name(b)));
  }
  if (common == ScalarType::Bool) {
    if (op == BinaryOp::kPow) {
      throw DTypeError(absl::StrFormat("%s: not supported for bool tensors (%s, %s)", name,
                                       dtype_name(a), dtype_name(b)));
    }
  }
  if (op == BinaryOp::kDiv && !is_floating_point(common)) return kDefaultFloat;
  return common;
}

// Whether binary op `op` takes uint16/32/64 operands (Note [Barebones unsigned ops]).
constexpr bool binary_takes_unsigned(BinaryOp op) {
  return op == BinaryOp::kAdd || op == BinaryOp::kSub || op == BinaryOp::kMul ||
         op == BinaryOp::kDiv || is_comparison(op);
}

// c10's canCast, for the result of an in-place op: no floating -> integer
// (uint16/32/64 included, unlike ExecuTorch's canCast in can_cast) and no
// non-bool -> bool.
inline bool result_can_cast(ScalarType from, ScalarType to) {
  return can_cast(from, to) && !(is_floating_point(from) && is_barebones_unsigned(to));
}

// ATen's check for pow(tensor, scalar): an integral (or bool) tensor to a
// negative integral scalar power is an error, judged on the scalar's value
// (before it is converted to the tensor's dtype, where -1 would become 255).
inline void check_int_pow_scalar(ScalarType base, const Scalar& exp) {
  if (is_integral(base, /*include_bool=*/true) && !exp.is_floating_point() && exp.to<int64_t>() < 0) {
    throw InvalidArgument(absl::StrFormat(
        "pow: integers to negative integer powers are not allowed (a %s tensor to the power %s); "
        "cast to a floating point dtype first", dtype_name(base), exp.str()));
  }
  // An integer exponent the base's integer dtype cannot hold (2**300 in uint8) is
  // refused, as ATen refuses it, rather than wrapped before the power is taken.
  if (is_integral(base, /*include_bool=*/false) && exp.is_integral()) {
    check_fill_value(exp, base, "pow");
  }
}
}  // namespace detail

template <class B>
ImplRef Ops<B>::binary(BinaryOp op, const TensorImpl& a, const TensorImpl& b) {
  const char* name = op_name(op);
  check_computable(name, a.scalar_type(), detail::binary_takes_unsigned(op));
  check_computable(name, b.scalar_type(), detail::binary_takes_unsigned(op));
  const ScalarType compute = detail::binary_compute_dtype(
      op, detail::result_type(a, b, name), name, a.scalar_type(), b.scalar_type());
  const ScalarType out_dtype = is_comparison(op) ? ScalarType::Bool : compute;
  // Fast path (most ops of a training step): same sizes, no cast, no broadcast.
  if (a.scalar_type() == compute && b.scalar_type() == compute && a.sizes() == b.sizes()) {
    ImplRef out = empty(a.sizes(), out_dtype, TensorShapeDynamism::DYNAMIC_BOUND, name);
    if (out->numel() > 0) ThrowIfError(B::binary(op, kernel_view(*out), kernel_view(a), kernel_view(b)));
    return out;
  }
  const Dims shape = ValueOrThrow(broadcast_shapes(a.sizes(), b.sizes(), name));
  ImplRef ca = to_dtype(a, compute, name);
  ImplRef cb = to_dtype(b, compute, name);
  ImplRef out = empty(shape, out_dtype, TensorShapeDynamism::DYNAMIC_BOUND, name);
  if (out->numel() > 0) {
    ThrowIfError(B::binary(op, kernel_view(*out), kernel_view(*ca, shape, broadcast_to(*ca, shape)),
                           kernel_view(*cb, shape, broadcast_to(*cb, shape))));
  }
  return out;
}

template <class B>
ImplRef Ops<B>::binary(BinaryOp op, const TensorImpl& a, const Scalar& s, bool scalar_first) {
  const char* name = op_name(op);
  check_computable(name, a.scalar_type(), detail::binary_takes_unsigned(op));
  // ATen computes x ** 0.5 as sqrt(x) and x ** -0.5 as rsqrt(x), which differ from pow on
  // special values ((-inf) ** 0.5 is NaN, (-0.) ** -0.5 is -inf): the same here.
  if (op == BinaryOp::kPow && !scalar_first && s.is_floating_point() &&
      (s.to_double() == 0.5 || s.to_double() == -0.5) && a.scalar_type() != ScalarType::Bool) {
    return unary(s.to_double() > 0 ? UnaryOp::kSqrt : UnaryOp::kRsqrt, a);
  }
  if (op == BinaryOp::kPow && !scalar_first) detail::check_int_pow_scalar(a.scalar_type(), s);
  const ScalarType common = promote_with_scalar(a.scalar_type(), s);
  const ScalarType compute =
      detail::binary_compute_dtype(op, common, name, a.scalar_type(), s.default_dtype());
  ImplRef ca = to_dtype(a, compute, name);
  ImplRef out = empty(a.sizes(), is_comparison(op) ? ScalarType::Bool : compute,
                      TensorShapeDynamism::DYNAMIC_BOUND, name);
  if (out->numel() > 0) {
    ThrowIfError(B::binary_scalar(op, kernel_view(*out), kernel_view(*ca), s, scalar_first));
  }
  return out;
}

namespace detail {
inline void check_writable(const char* op, const TensorImpl& self) {
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (self.stride(d) == 0 && self.size(d) > 1) {
      throw InvalidArgument(absl::StrFormat(
          "%s: more than one element of the written-to tensor (shape %s, strides %s) refers to a "
          "single memory location; call clone() before the in-place op",
          op, shape_str(self.sizes()), shape_str(self.strides())));
    }
  }
}
inline std::string inplace_name(const char* name) { return absl::StrCat(name, "_"); }
}  // namespace detail

template <class B>
void Ops<B>::binary_(BinaryOp op, TensorImpl& self, const TensorImpl& other) {
  const std::string name = detail::inplace_name(op_name(op));
  check_computable(name.c_str(), self.scalar_type(), detail::binary_takes_unsigned(op));
  check_computable(name.c_str(), other.scalar_type(), detail::binary_takes_unsigned(op));
  const ScalarType compute = detail::binary_compute_dtype(
      op, detail::result_type(self, other, name.c_str()), name.c_str(), self.scalar_type(),
      other.scalar_type());
  if (!detail::result_can_cast(compute, self.scalar_type())) {
    throw DTypeError(absl::StrFormat("%s: result type %s can't be cast to the desired output type %s",
                                     name, dtype_name(compute), dtype_name(self.scalar_type())));
  }
  const Dims shape = ValueOrThrow(broadcast_shapes(self.sizes(), other.sizes(), name.c_str()));
  if (!std::equal(shape.begin(), shape.end(), self.sizes().begin(), self.sizes().end())) {
    throw ShapeError(absl::StrFormat(
        "%s: output with shape %s doesn't match the broadcast shape %s (other has shape %s)", name,
        shape_str(self.sizes()), shape_str(shape), shape_str(other.sizes())));
  }
  detail::check_writable(name.c_str(), self);
  check_no_partial_overlap(name.c_str(), self, other);
  if (self.numel() == 0) return;
  if (compute != self.scalar_type()) {
    ImplRef tmp = binary(op, self, other);
    ThrowIfError(B::copy(kernel_view(self), kernel_view(*tmp)));
    return;
  }
  // An operand that overlaps self in another layout is copied first, so the
  // kernel never reads an element it already overwrote.
  ImplRef src = (shares_storage(self, other) && !same_view(self, other)) ? clone(other)
                                                                          : retain(other);
  ImplRef cs = to_dtype(*src, compute, name.c_str());
  ThrowIfError(B::binary(op, kernel_view(self), kernel_view(self),
                         kernel_view(*cs, shape, broadcast_to(*cs, shape))));
}

template <class B>
void Ops<B>::binary_(BinaryOp op, TensorImpl& self, const Scalar& s) {
  const std::string name = detail::inplace_name(op_name(op));
  check_computable(name.c_str(), self.scalar_type(), detail::binary_takes_unsigned(op));
  const ScalarType compute = detail::binary_compute_dtype(
      op, promote_with_scalar(self.scalar_type(), s), name.c_str(), self.scalar_type(),
      s.default_dtype());
  if (!detail::result_can_cast(compute, self.scalar_type())) {
    throw DTypeError(absl::StrFormat("%s: result type %s can't be cast to the desired output type %s",
                                     name, dtype_name(compute), dtype_name(self.scalar_type())));
  }
  detail::check_writable(name.c_str(), self);
  if (self.numel() == 0) return;
  if (compute != self.scalar_type()) {
    ImplRef tmp = binary(op, self, s, false);
    ThrowIfError(B::copy(kernel_view(self), kernel_view(*tmp)));
    return;
  }
  ThrowIfError(B::binary_scalar(op, kernel_view(self), kernel_view(self), s, false));
}

template <class B>
void Ops<B>::copy_(TensorImpl& self, const TensorImpl& src) {
  const Dims shape = ValueOrThrow(broadcast_shapes(self.sizes(), src.sizes(), "copy_"));
  if (!std::equal(shape.begin(), shape.end(), self.sizes().begin(), self.sizes().end())) {
    throw ShapeError(absl::StrFormat("copy_: source of shape %s cannot be broadcast to the "
                                     "destination's shape %s", shape_str(src.sizes()),
                                     shape_str(self.sizes())));
  }
  detail::check_writable("copy_", self);
  check_no_partial_overlap("copy_", self, src);
  if (self.numel() == 0 || same_view(self, src)) return;
  ImplRef s = shares_storage(self, src) ? clone(src) : retain(src);
  ThrowIfError(B::copy(kernel_view(self), kernel_view(*s, shape, broadcast_to(*s, shape))));
}

template <class B>
void Ops<B>::fill_(TensorImpl& self, const Scalar& value, const char* op) {
  check_fill_value(value, self.scalar_type(), op);
  if (self.numel() == 0) return;
  ThrowIfError(B::fill(kernel_view(self), value));
}

template <class B>
ImplRef Ops<B>::unary(UnaryOp op, const TensorImpl& t) {
  const char* name = op_name(op);
  // exp, log, ...: integers (uint16/32/64 included) compute in float32.
  const bool to_float = op != UnaryOp::kNeg && op != UnaryOp::kAbs && op != UnaryOp::kRelu &&
                        op != UnaryOp::kGelu && op != UnaryOp::kSilu;
  check_computable(name, t.scalar_type(), to_float);
  ScalarType compute = t.scalar_type();
  switch (op) {
    case UnaryOp::kNeg: case UnaryOp::kAbs: case UnaryOp::kRelu:
      if (compute == ScalarType::Bool) {
        throw DTypeError(absl::StrFormat("%s: not supported for bool tensors; cast with to(...) first", name));
      }
      break;
    case UnaryOp::kGelu: case UnaryOp::kSilu:
      if (!is_floating_point(compute)) {
        throw DTypeError(absl::StrFormat("%s: expected a floating point tensor but got %s; cast with "
                                         "to(float32) first", name, dtype_name(compute)));
      }
      break;
    default:  // exp, log, ...: integral inputs compute in the default float dtype (ATen)
      if (!is_floating_point(compute)) compute = kDefaultFloat;
  }
  ImplRef c = to_dtype(t, compute, name);
  ImplRef out = empty(t.sizes(), compute, TensorShapeDynamism::DYNAMIC_BOUND, name);
  if (out->numel() > 0) ThrowIfError(B::unary(op, kernel_view(*out), kernel_view(*c)));
  return out;
}

template <class B>
ImplRef Ops<B>::where(const TensorImpl& cond, const TensorImpl& a, const TensorImpl& b) {
  if (cond.scalar_type() != ScalarType::Bool) {
    throw DTypeError(absl::StrFormat("where: expected condition to be a bool tensor, but got %s",
                                     dtype_name(cond.scalar_type())));
  }
  check_computable("where", a.scalar_type(), /*takes_unsigned=*/true);
  check_computable("where", b.scalar_type(), /*takes_unsigned=*/true);
  const ScalarType dt = detail::result_type(a, b, "where");
  Dims shape = ValueOrThrow(broadcast_shapes(cond.sizes(), a.sizes(), "where"));
  shape = ValueOrThrow(broadcast_shapes(shape, b.sizes(), "where"));
  ImplRef ca = to_dtype(a, dt, "where");
  ImplRef cb = to_dtype(b, dt, "where");
  ImplRef out = empty(shape, dt, TensorShapeDynamism::DYNAMIC_BOUND, "where");
  if (out->numel() > 0) {
    ThrowIfError(B::where(kernel_view(*out), kernel_view(cond, shape, broadcast_to(cond, shape)),
                          kernel_view(*ca, shape, broadcast_to(*ca, shape)),
                          kernel_view(*cb, shape, broadcast_to(*cb, shape))));
  }
  return out;
}

// ---- reductions --------------------------------------------------------------

namespace detail {
// Marks reduced dims; ShapeError on out-of-range or repeated dims.
inline std::vector<bool> reduced_dims(const char* op, const TensorImpl& t, IntSpan dims) {
  std::vector<bool> r(static_cast<size_t>(t.dim()), dims.empty());
  for (int64_t d : dims) {
    const int64_t w = ValueOrThrow(wrap_dim(d, t.dim(), op));
    if (t.dim() == 0) continue;
    if (r[w]) {
      throw ShapeError(absl::StrFormat("%s: dim %d appears multiple times in the list of dims %s",
                                       op, w, shape_str(dims)));
    }
    r[w] = true;
  }
  return r;
}

inline Dims drop_reduced(IntSpan sizes, const std::vector<bool>& r) {
  Dims out;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (!r[i]) out.push_back(sizes[i]);
  }
  return out;
}

inline void check_nonempty_reduction(const char* op, const TensorImpl& t,
                                     const std::vector<bool>& r) {
  for (size_t i = 0; i < r.size(); ++i) {
    if (r[i] && t.size(static_cast<int64_t>(i)) == 0) {
      throw ShapeError(absl::StrFormat(
          "%s: cannot reduce over dim %d of size 0 (shape %s): there is no identity for %s", op, i,
          shape_str(t.sizes()), op));
    }
  }
}
}  // namespace detail

template <class B>
ImplRef Ops<B>::reduce(ReduceOp op, const TensorImpl& t, IntSpan dims, bool keepdim) {
  const char* name = op_name(op);
  check_computable(name, t.scalar_type(), /*takes_unsigned=*/op == ReduceOp::kSum);
  ScalarType out_dtype = t.scalar_type();
  if (op == ReduceOp::kSum && !is_floating_point(out_dtype)) out_dtype = ScalarType::Long;
  if (op == ReduceOp::kMean && !is_floating_point(out_dtype)) {
    throw DTypeError(absl::StrFormat(
        "mean: could not infer the output dtype: input dtype must be floating point, but got %s; "
        "cast with to(float32) first", dtype_name(out_dtype)));
  }
  const std::vector<bool> r = detail::reduced_dims(name, t, dims);
  if (op == ReduceOp::kMax || op == ReduceOp::kMin) {
    if (t.numel() == 0 && (dims.empty() || t.dim() == 0)) {
      throw ShapeError(absl::StrFormat(
          "%s: cannot reduce an empty tensor (shape %s) without a dim; specify a dim of nonzero size",
          name, shape_str(t.sizes())));
    }
    detail::check_nonempty_reduction(name, t, r);
  }
  Dims keep(t.sizes().begin(), t.sizes().end());
  for (size_t i = 0; i < r.size(); ++i) {
    if (r[i]) keep[i] = 1;
  }
  ImplRef c = to_dtype(t, out_dtype, name);
  ImplRef out = empty(keep, out_dtype, TensorShapeDynamism::DYNAMIC_BOUND, name);
  if (out->numel() > 0) ThrowIfError(B::reduce(op, kernel_view(*out), kernel_view(*c)));
  if (keepdim) return out;
  const Dims final_sizes = detail::drop_reduced(t.sizes(), r);
  return make_view(*out, final_sizes, contiguous_strides(final_sizes), 0);
}

template <class B>
ImplRef Ops<B>::arg_reduce(ReduceOp op, const TensorImpl& t, std::optional<int64_t> dim,
                           bool keepdim) {
  const char* name = op_name(op);
  check_computable(name, t.scalar_type());
  if (t.scalar_type() == ScalarType::Bool) {
    throw DTypeError(absl::StrFormat("%s: not implemented for bool tensors; cast with to(uint8) first", name));
  }
  if (!dim.has_value()) {
    if (t.numel() == 0) {
      throw ShapeError(absl::StrFormat("%s: cannot reduce an empty tensor (shape %s) without a dim",
                                       name, shape_str(t.sizes())));
    }
    ImplRef flat = reshape(t, Dims{t.numel()});
    ImplRef out = empty(Dims{1}, ScalarType::Long, TensorShapeDynamism::DYNAMIC_BOUND, name);
    ThrowIfError(B::reduce(op, kernel_view(*out), kernel_view(*flat)));
    const Dims final_sizes = keepdim ? Dims(t.dim(), 1) : Dims{};
    return make_view(*out, final_sizes, contiguous_strides(final_sizes), 0);
  }
  const int64_t d = ValueOrThrow(wrap_dim(*dim, t.dim(), name));
  std::vector<bool> r(static_cast<size_t>(t.dim()), false);
  if (t.dim() > 0) r[d] = true;
  detail::check_nonempty_reduction(name, t, r);
  Dims keep(t.sizes().begin(), t.sizes().end());
  if (t.dim() > 0) keep[d] = 1;
  ImplRef out = empty(keep, ScalarType::Long, TensorShapeDynamism::DYNAMIC_BOUND, name);
  if (out->numel() > 0) ThrowIfError(B::reduce(op, kernel_view(*out), kernel_view(t)));
  if (keepdim) return out;
  const Dims final_sizes = detail::drop_reduced(t.sizes(), r);
  return make_view(*out, final_sizes, contiguous_strides(final_sizes), 0);
}

template <class B>
ImplRef Ops<B>::softmax(const TensorImpl& t, int64_t dim, bool log) {
  const char* name = log ? "log_softmax" : "softmax";
  check_computable(name, t.scalar_type());
  if (!is_floating_point(t.scalar_type())) {
    throw DTypeError(absl::StrFormat("%s: expected a floating point tensor but got %s; cast with "
                                     "to(float32) first", name, dtype_name(t.scalar_type())));
  }
  const int64_t d = ValueOrThrow(wrap_dim(dim, t.dim(), name));
  ImplRef out = empty(t.sizes(), t.scalar_type(), TensorShapeDynamism::DYNAMIC_BOUND, name);
  if (out->numel() == 0) return out;
  if (t.dim() == 0) {  // softmax of a scalar is 1 (log: 0)
    fill_(*out, Scalar(log ? 0.0 : 1.0), name);
    return out;
  }
  ThrowIfError(B::softmax(kernel_view(*out), kernel_view(t), d, log));
  return out;
}

// ---- matmul -------------------------------------------------------------------

template <class B>
ImplRef Ops<B>::matmul(const TensorImpl& a, const TensorImpl& b) {
  check_computable("matmul", a.scalar_type());
  check_computable("matmul", b.scalar_type());
  if (a.scalar_type() != b.scalar_type()) {
    throw DTypeError(absl::StrFormat(
        "matmul: expected both inputs to have the same dtype, but got %s (shape %s) and %s "
        "(shape %s)", dtype_name(a.scalar_type()), shape_str(a.sizes()),
        dtype_name(b.scalar_type()), shape_str(b.sizes())));
  }
  if (a.scalar_type() == ScalarType::Bool) {
    throw DTypeError("matmul: not implemented for bool tensors; cast with to(...) first");
  }
  if (a.dim() == 0 || b.dim() == 0) {
    throw ShapeError(absl::StrFormat("matmul: both arguments need to be at least 1-D, but got shapes "
                                     "%s and %s", shape_str(a.sizes()), shape_str(b.sizes())));
  }
  // As ATen's matmul: the last two dims are the matrix ([n, k] and [k, m]), a
  // 1-D lhs is a row [1, k] and a 1-D rhs a column [k, 1] (their unit dim left
  // out of the result), and the dims before the matrix are batch dims that
  // broadcast from the right, as elementwise ops do.
  const size_t ra = a.dim(), rb = b.dim();
  const int64_t n = ra == 1 ? 1 : a.size(ra - 2), k = a.size(ra - 1);
  const int64_t k2 = rb == 1 ? b.size(0) : b.size(rb - 2), m = rb == 1 ? 1 : b.size(rb - 1);
  const int64_t san = ra == 1 ? 0 : a.stride(ra - 2), sak = a.stride(ra - 1);
  const int64_t sbk = rb == 1 ? b.stride(0) : b.stride(rb - 2), sbm = rb == 1 ? 0 : b.stride(rb - 1);
  if (k != k2) {
    throw ShapeError(absl::StrFormat("matmul: shapes %s and %s cannot be multiplied (%d != %d)",
                                     shape_str(a.sizes()), shape_str(b.sizes()), k, k2));
  }
  const size_t na = ra > 2 ? ra - 2 : 0, nb = rb > 2 ? rb - 2 : 0, nbatch = std::max(na, nb);
  Dims final_sizes(nbatch, 1);
  for (size_t i = 0; i < nbatch; ++i) {
    const int64_t da = i + na >= nbatch ? a.size(i + na - nbatch) : 1;
    const int64_t db = i + nb >= nbatch ? b.size(i + nb - nbatch) : 1;
    if (da != db && da != 1 && db != 1) {
      throw ShapeError(absl::StrFormat(
          "matmul: the batch dims of %s and %s do not broadcast (%d vs %d at batch dim %d)",
          shape_str(a.sizes()), shape_str(b.sizes()), da, db, i));
    }
    final_sizes[i] = da == 1 ? db : da;  // 1 broadcasts, also to 0
  }
  if (ra > 1) final_sizes.push_back(n);
  if (rb > 1) final_sizes.push_back(m);
  ImplRef out = empty(final_sizes, a.scalar_type(), TensorShapeDynamism::DYNAMIC_BOUND, "matmul");
  if (out->numel() == 0) return out;
  if (k == 0) {
    fill_(*out, Scalar(0), "matmul");
    return out;
  }
  // The kernel sees [batch..., n, k] x [batch..., k, m] -> [batch..., n, m]
  // with out's batch sizes on all three and stride 0 where an operand is
  // broadcast. Batch dims of size 1 are left out and neighbours that every
  // operand steps through as one are merged, so that the usual cases (equal
  // batches, one operand a single matrix) reach it with one batch dim.
  Dims bs, as, bst, os;  // batch sizes; a's, b's and out's batch strides
  int64_t out_stride = n * m;
  Dims out_batch_strides(nbatch);
  for (size_t i = nbatch; i-- > 0;) {
    out_batch_strides[i] = out_stride;
    out_stride *= final_sizes[i];
  }
  for (size_t i = 0; i < nbatch; ++i) {
    const int64_t size = final_sizes[i];
    if (size == 1) continue;
    const int64_t sa = i + na >= nbatch && a.size(i + na - nbatch) != 1 ? a.stride(i + na - nbatch) : 0;
    const int64_t sb = i + nb >= nbatch && b.size(i + nb - nbatch) != 1 ? b.stride(i + nb - nbatch) : 0;
    const int64_t so = out_batch_strides[i];
    if (!bs.empty() && as.back() == sa * size && bst.back() == sb * size && os.back() == so * size) {
      bs.back() *= size;
      as.back() = sa;
      bst.back() = sb;
      os.back() = so;
      continue;
    }
    bs.push_back(size);
    as.push_back(sa);
    bst.push_back(sb);
    os.push_back(so);
  }
  if (bs.empty()) {
    bs.push_back(1);
    as.push_back(0);
    bst.push_back(0);
    os.push_back(n * m);
  }
  Dims a_sizes = bs, b_sizes = bs, o_sizes = bs;
  a_sizes.insert(a_sizes.end(), {n, k});
  b_sizes.insert(b_sizes.end(), {k, m});
  o_sizes.insert(o_sizes.end(), {n, m});
  as.insert(as.end(), {san, sak});
  bst.insert(bst.end(), {sbk, sbm});
  os.insert(os.end(), {m, 1});
  ThrowIfError(B::matmul(kernel_view(*out, o_sizes, os), kernel_view(a, a_sizes, as),
                         kernel_view(b, b_sizes, bst)));
  return out;
}

// ---- indexing ----------------------------------------------------------------

template <class B>
ImplRef Ops<B>::index_select(const TensorImpl& t, int64_t dim, const TensorImpl& index,
                             const char* op) {
  check_computable(op, t.scalar_type(), /*takes_unsigned=*/true);
  if (index.scalar_type() != ScalarType::Long && index.scalar_type() != ScalarType::Int) {
    throw DTypeError(absl::StrFormat("%s: expected an int64 or int32 index, but got %s", op,
                                     dtype_name(index.scalar_type())));
  }
  if (index.dim() > 1) {
    throw ShapeError(absl::StrFormat("%s: index must be 0-D or 1-D, but has shape %s", op,
                                     shape_str(index.sizes())));
  }
  if (t.dim() == 0) {
    // As ATen: a 0-dim tensor is indexed as one of size 1 by one index (which must be 0), and the
    // result is 0-dim.
    if (index.numel() != 1) {
      throw ShapeError(absl::StrFormat("%s: a 0-dim tensor takes exactly one index, got %d", op,
                                       index.numel()));
    }
    if (dim != 0 && dim != -1) ValueOrThrow(wrap_dim(dim, 0, op));  // "dim out of range" as for any 0-dim op
    ImplRef one = make_view(t, Dims{1}, Dims{1}, t.storage_offset());
    ImplRef r = index_select(*one, 0, index, op);
    return make_view(*r, IntSpan(), IntSpan(), r->storage_offset());  // 0-dim
  }
  const int64_t d = ValueOrThrow(wrap_dim(dim, t.dim(), op));
  ImplRef idx = to_dtype(index, ScalarType::Long, op);
  ImplRef idx1 = make_view(*idx, Dims{idx->numel()}, Dims{idx->dim() == 0 ? 1 : idx->stride(0)},
                           idx->storage_offset());
  Dims sizes(t.sizes().begin(), t.sizes().end());
  sizes[d] = idx1->numel();
  ImplRef out = empty(sizes, t.scalar_type(), TensorShapeDynamism::DYNAMIC_BOUND, op);
  if (idx1->numel() > 0) {
    // The kernel's bound check names index_select (Note [Device contract]).
    ThrowIfError(renamed_op(B::index_select(kernel_view(*out), kernel_view(t), d, kernel_view(*idx1)),
                            "index_select", op));
  }
  return out;
}

template <class B>
ImplRef Ops<B>::embedding(const TensorImpl& weight, const TensorImpl& indices) {
  if (weight.dim() != 2) {
    throw ShapeError(absl::StrFormat("embedding: weight must be 2-D [num_embeddings, dim], but has "
                                     "shape %s", shape_str(weight.sizes())));
  }
  ImplRef flat = reshape(indices, Dims{indices.numel()});
  ImplRef rows = index_select(weight, 0, *flat, "embedding");
  Dims sizes(indices.sizes().begin(), indices.sizes().end());
  sizes.push_back(weight.size(1));
  return make_view(*rows, sizes, contiguous_strides(sizes), 0);
}

template <class B>
ImplRef Ops<B>::cat(const std::vector<const TensorImpl*>& tensors, int64_t dim) {
  if (tensors.empty()) throw InvalidArgument("cat: expected a non-empty list of tensors");
  ScalarType dt = tensors[0]->scalar_type();
  const TensorImpl* ref = nullptr;
  for (const TensorImpl* t : tensors) {
    check_computable("cat", t->scalar_type(), /*takes_unsigned=*/true);
    dt = promote_types(dt, t->scalar_type(), "cat");
    const bool legacy_empty = t->dim() == 1 && t->numel() == 0;
    if (!legacy_empty && ref == nullptr) ref = t;
  }
  if (ref == nullptr) return empty(Dims{0}, dt, TensorShapeDynamism::DYNAMIC_BOUND, "cat");
  if (ref->dim() == 0) throw ShapeError("cat: zero-dimensional tensors cannot be concatenated");
  const int64_t d = ValueOrThrow(wrap_dim(dim, ref->dim(), "cat"));
  Dims sizes(ref->sizes().begin(), ref->sizes().end());
  int64_t total = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const TensorImpl* t = tensors[i];
    if (t->dim() == 1 && t->numel() == 0) continue;
    if (t->dim() != ref->dim()) {
      throw ShapeError(absl::StrFormat("cat: tensors must have the same rank, but tensor %d has shape "
                                       "%s and tensor 0 has shape %s", i, shape_str(t->sizes()),
                                       shape_str(ref->sizes())));
    }
    for (int64_t j = 0; j < t->dim(); ++j) {
      if (j != d && t->size(j) != ref->size(j)) {
        throw ShapeError(absl::StrFormat(
            "cat: sizes of tensors must match except in dim %d, but tensor %d has shape %s and the "
            "first has shape %s (mismatch at dim %d)", d, i, shape_str(t->sizes()),
            shape_str(ref->sizes()), j));
      }
    }
    if (__builtin_add_overflow(total, t->size(d), &total)) {
      throw ShapeError(absl::StrFormat(
          "cat: the sizes along dim %d add up to more than int64 holds (overflow at tensor %d, "
          "shape %s)", d, i, shape_str(t->sizes())));
    }
  }
  sizes[d] = total;
  ImplRef out = empty(sizes, dt, TensorShapeDynamism::DYNAMIC_BOUND, "cat");
  int64_t offset = 0;
  for (const TensorImpl* t : tensors) {
    if ((t->dim() == 1 && t->numel() == 0)) continue;
    const int64_t len = t->size(d);
    if (len > 0 && t->numel() > 0) {
      ImplRef dst = ValueOrThrow(narrow(*out, d, offset, len));
      ThrowIfError(B::copy(kernel_view(*dst), kernel_view(*t)));
    }
    offset += len;
  }
  return out;
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

#endif  // CUSTODY_CORE_OPS_IMPL_H_
