// Copyright 2026 The custody Authors.
//
// core/tensor.h — `BasicTensor<Policy, Backend>`, the handle user code holds.
//
// One tensor interface, parameterised at compile time by
//
//   Policy   how a handle owns its reference on the TensorImpl: when it is given
//            back, what copying a handle means, what extra calls a handle has.
//            A policy provides `template <class Derived> class Handle`, the CRTP
//            base of BasicTensor, which must offer
//              Handle(AdoptTag, ImplRef)        wrap a fresh +1 reference
//              const TensorImpl& checked_impl(const char* op) const
//                                               the TensorImpl, or LifetimeError
//                                               (naming `op`) when this handle was
//                                               released/disposed/finalized
//              void release_reference()         G3: give the reference back now
//            may offer
//              Derived new_alias(const char* op) const
//                                               another handle to this tensor, for
//                                               alias() and the in-place ops (scope:
//                                               Note [Lent references]); without it
//                                               they adopt a new reference
//            and may add policy calls (`dispose()`, `use_count()`, ...).
//   Backend  where memory lives and kernels run (see core/backend.h).
//
// Note [Fresh handles]
// ~~~~~~~~~~~~~~~~~~~~
// Every operation returns a fresh handle (a fresh reference), including
// `alias()` and in-place ops (`add_` returns a new handle to the same
// TensorImpl). Inputs are never consumed. What "fresh" costs and when it is
// given back is the policy's contract (docs/design.md §5): under scope, an
// alias is a fresh entry that may share its source's reference (Note [Lent
// references], policies/scope/scope.h).
//
// Accessors use ATen/ExecuTorch names (`dim() numel() sizes() ...`). Data
// pointers are backend addresses: reading them from the host is valid only on
// host backends; `item()`, `to_vector()` and printing work everywhere.

#ifndef CUSTODY_CORE_TENSOR_H_
#define CUSTODY_CORE_TENSOR_H_

#include <initializer_list>
#include <optional>
#include <ostream>
#include <type_traits>
#include <vector>

#include "core/backend.h"
#include "core/error.h"
#include "core/ops.h"
#include "core/policy_traits.h"
#include "core/random.h"
#include "core/scalar.h"
#include "core/shape.h"
#include "core/tensor_impl.h"
#include "core/autograd/meta.h"
#include "core/temporary.h"

namespace custody {

namespace autograd::internal {
template <class T>
struct Functions;  // core/autograd/functions.h

// Runs `f`, which records `out` in a graph; if it throws (an op with no
// backward, an allocation), gives `out` back first, so nothing leaks.
template <class H, class F>
void record(H& out, F&& f) {
  try {
    f();
  } catch (...) {
    out.release();
    throw;
  }
}
}  // namespace autograd::internal

template <class T>
concept ScalarLike = (std::is_arithmetic_v<T> || std::is_same_v<T, Scalar>);

template <class Policy, class B>
  requires OwnershipPolicy<Policy> && Backend<B>
class BasicTensor : public Policy::template Handle<BasicTensor<Policy, B>> {
  using HandleBase = typename Policy::template Handle<BasicTensor<Policy, B>>;
  using Ops = internal::Ops<B>;
  using Grad = autograd::internal::Functions<BasicTensor>;

 public:
  using policy_type = Policy;
  using backend_type = B;
  using HandleBase::HandleBase;

  // Wraps a fresh +1 reference in a handle of this policy.
  static BasicTensor adopt(ImplRef ref) { return BasicTensor(kAdopt, std::move(ref)); }

 private:
  // Another handle to this tensor (alias(), the in-place ops): the policy's
  // `new_alias(op)` when its Handle has one, else a new reference adopted.
  BasicTensor another_handle(const char* op) const {
    if constexpr (requires(const HandleBase& h) {
                    { h.new_alias(op) } -> std::same_as<BasicTensor>;
                  }) {
      return this->new_alias(op);
    } else {
      return adopt(internal::retain(this->checked_impl(op)));
    }
  }

  // The tensor an in-place op writes: its version bumped (Note [Versions on
  // the Storage]). An InvalidArgument when the op would change a tensor that
  // requires grad, or write one that does into it, while grad mode is on: the
  // graph records no in-place op (change parameters under NoGradGuard).
  TensorImpl& writable(const char* op, const TensorImpl* other = nullptr) const {
    TensorImpl& self = const_cast<TensorImpl&>(this->checked_impl(op));
    if ((self.autograd_meta() != nullptr || (other != nullptr && other->autograd_meta() != nullptr)) &&
        (autograd::internal::requires_grad(self) ||
         (other != nullptr && autograd::internal::requires_grad(*other))) &&
        is_grad_enabled()) [[unlikely]] {
      throw_in_place_on_graph(op, self);
    }
    self.storage()->bump_version();
    return self;
  }
  [[noreturn, gnu::cold]] static void throw_in_place_on_graph(const char* op, const TensorImpl& t);

 public:

  // ---- accessors -----------------------------------------------------------
  const TensorImpl& impl() const { return this->checked_impl("impl"); }
  int64_t dim() const { return this->checked_impl("dim").dim(); }
  int64_t numel() const { return this->checked_impl("numel").numel(); }
  IntSpan sizes() const { return this->checked_impl("sizes").sizes(); }
  IntSpan strides() const { return this->checked_impl("strides").strides(); }
  int64_t size(int64_t d) const {
    const TensorImpl& t = this->checked_impl("size");
    return t.size(ValueOrThrow(wrap_dim(d, t.dim(), "size")));
  }
  int64_t stride(int64_t d) const {
    const TensorImpl& t = this->checked_impl("stride");
    return t.stride(ValueOrThrow(wrap_dim(d, t.dim(), "stride")));
  }
  Dims dim_order() const { return this->checked_impl("dim_order").dim_order(); }
  ScalarType scalar_type() const { return this->checked_impl("scalar_type").scalar_type(); }
  ScalarType dtype() const { return this->checked_impl("dtype").scalar_type(); }
  size_t element_size() const { return this->checked_impl("element_size").element_size(); }
  size_t nbytes() const { return this->checked_impl("nbytes").nbytes(); }
  int64_t storage_offset() const { return this->checked_impl("storage_offset").storage_offset(); }
  TensorShapeDynamism shape_dynamism() const {
    return this->checked_impl("shape_dynamism").shape_dynamism();
  }
  bool is_contiguous() const { return this->checked_impl("is_contiguous").is_contiguous(); }
  Device device() const { return this->checked_impl("device").device(); }
  template <class T> T* data_ptr() const { return this->checked_impl("data_ptr").template data_ptr<T>(); }
  template <class T> const T* const_data_ptr() const {
    return this->checked_impl("const_data_ptr").template const_data_ptr<T>();
  }
  template <class T> T* mutable_data_ptr() const {
    return this->checked_impl("mutable_data_ptr").template mutable_data_ptr<T>();
  }
  // True when both handles refer to tensors sharing one Storage.
  bool is_same_storage(const BasicTensor& o) const {
    return internal::shares_storage(this->checked_impl("is_same_storage"),
                                    o.checked_impl("is_same_storage"));
  }

  // ---- autograd (core/autograd, docs/autograd.md) ---------------------------
  // PyTorch's names. requires_grad_ marks a leaf: ops on it record a graph
  // while grad mode is on; a DTypeError unless the dtype is floating point.
  const BasicTensor& requires_grad_(bool requires_grad = true) const;
  bool requires_grad() const { return autograd::internal::requires_grad(this->checked_impl("requires_grad")); }
  // True for a tensor no recorded op made (every tensor that does not require grad).
  bool is_leaf() const {
    const auto* m = this->checked_impl("is_leaf").autograd_meta();
    return m == nullptr || !m->grad_fn;
  }
  // The gradient accumulated by backward on this leaf, as a fresh handle (a
  // new reference under the policy); an empty handle (`defined()` false)
  // before any backward, or after reset_grad().
  BasicTensor grad() const;
  // Drops the accumulated gradient (PyTorch's `t.grad = None`).
  void reset_grad() const;
  // The name of the op that made this tensor ("mul"), or "" for a leaf.
  const char* grad_fn_name() const {
    const auto* m = this->checked_impl("grad_fn_name").autograd_meta();
    return m != nullptr && m->grad_fn ? m->grad_fn->name() : "";
  }
  // A tensor over the same data that is out of any graph and does not require
  // grad (in-place changes through either are seen by the other's version).
  BasicTensor detach() const {
    return adopt(autograd::internal::shallow_view(this->checked_impl("detach")));
  }
  // True unless this handle is empty (default-made, released, disposed).
  bool defined() const noexcept {
    try {
      (void)this->checked_impl("defined");
      return true;
    } catch (const LifetimeError&) {
      return false;
    }
  }
  // Backward from this tensor: `gradient` of it (may be omitted for a
  // one-element tensor: 1), accumulated into the grad() of every leaf that
  // requires grad. The saved tensors are given back as backward passes each
  // node unless `retain_graph` (default: create_graph); `create_graph`
  // records the gradients' own graph, for higher-order gradients.
  void backward(const BasicTensor& gradient = BasicTensor(), std::optional<bool> retain_graph = std::nullopt,
                bool create_graph = false) const;

  // ---- factories -----------------------------------------------------------
  static BasicTensor empty(IntSpan sizes, ScalarType dtype = kDefaultFloat,
                           TensorShapeDynamism dyn = TensorShapeDynamism::DYNAMIC_BOUND) {
    return adopt(Ops::empty(sizes, dtype, dyn, "empty"));
  }
  static BasicTensor empty(std::initializer_list<int64_t> sizes, ScalarType dtype = kDefaultFloat) {
    return empty(IntSpan(sizes.begin(), sizes.size()), dtype);
  }
  static BasicTensor empty_strided(IntSpan sizes, IntSpan strides, ScalarType dtype = kDefaultFloat,
                                   TensorShapeDynamism dyn = TensorShapeDynamism::DYNAMIC_BOUND) {
    return adopt(Ops::empty_strided(sizes, strides, dtype, dyn, "empty_strided"));
  }
  static BasicTensor full(IntSpan sizes, Scalar value, std::optional<ScalarType> dtype = std::nullopt,
                          TensorShapeDynamism dyn = TensorShapeDynamism::DYNAMIC_BOUND) {
    return adopt(Ops::full(sizes, value, dtype.value_or(value.default_dtype()), dyn, "full"));
  }
  static BasicTensor full_strided(IntSpan sizes, IntSpan strides, Scalar value,
                                  std::optional<ScalarType> dtype = std::nullopt) {
    return adopt(Ops::full_strided(sizes, strides, value, dtype.value_or(value.default_dtype()),
                                   TensorShapeDynamism::DYNAMIC_BOUND, "full_strided"));
  }
  static BasicTensor zeros(IntSpan sizes, ScalarType dtype = kDefaultFloat) {
    return adopt(Ops::full(sizes, Scalar(0), dtype, TensorShapeDynamism::DYNAMIC_BOUND, "zeros"));
  }
  static BasicTensor zeros(std::initializer_list<int64_t> sizes, ScalarType dtype = kDefaultFloat) {
    return zeros(IntSpan(sizes.begin(), sizes.size()), dtype);
  }
  static BasicTensor ones(IntSpan sizes, ScalarType dtype = kDefaultFloat) {
    return adopt(Ops::full(sizes, Scalar(1), dtype, TensorShapeDynamism::DYNAMIC_BOUND, "ones"));
  }
  static BasicTensor ones(std::initializer_list<int64_t> sizes, ScalarType dtype = kDefaultFloat) {
    return ones(IntSpan(sizes.begin(), sizes.size()), dtype);
  }
  static BasicTensor arange(Scalar end, std::optional<ScalarType> dtype = std::nullopt) {
    return adopt(Ops::arange(Scalar(0), end, Scalar(1), dtype));
  }
  static BasicTensor arange(Scalar start, Scalar end, Scalar step = Scalar(1),
                            std::optional<ScalarType> dtype = std::nullopt) {
    return adopt(Ops::arange(start, end, step, dtype));
  }
  // Uniform [0, 1), standard normal, and integers in [low, high); Philox streams
  // seeded by custody::manual_seed (identical on every backend).
  static BasicTensor rand(IntSpan sizes, ScalarType dtype = kDefaultFloat) {
    return adopt(Ops::random(sizes, contiguous_strides(sizes), dtype, RandomDist::kUniform, 0, 1,
                             TensorShapeDynamism::DYNAMIC_BOUND, "rand"));
  }
  static BasicTensor randn(IntSpan sizes, ScalarType dtype = kDefaultFloat) {
    return adopt(Ops::random(sizes, contiguous_strides(sizes), dtype, RandomDist::kNormal, 0, 1,
                             TensorShapeDynamism::DYNAMIC_BOUND, "randn"));
  }
  static BasicTensor randint(int64_t low, int64_t high, IntSpan sizes,
                             ScalarType dtype = kDefaultInt) {
    return adopt(Ops::randint(sizes, contiguous_strides(sizes), dtype, low, high,
                              TensorShapeDynamism::DYNAMIC_BOUND, "randint"));
  }
  // A 0-dim tensor holding `value` (dtype from the value unless given).
  static BasicTensor scalar(Scalar value, std::optional<ScalarType> dtype = std::nullopt) {
    return adopt(Ops::full(IntSpan(), value, dtype.value_or(value.default_dtype()),
                           TensorShapeDynamism::STATIC, "scalar"));
  }
  // Copies `data` into a new tensor of shape `sizes` (1-D of data.size() if omitted).
  template <class T>
    requires kIsScalarCppType<T>
  static BasicTensor from_vector(const std::vector<T>& data, std::optional<IntSpan> sizes = std::nullopt,
                                 TensorShapeDynamism dyn = TensorShapeDynamism::DYNAMIC_BOUND) {
    const Dims s = sizes ? Dims(sizes->begin(), sizes->end()) : Dims{static_cast<int64_t>(data.size())};
    if constexpr (std::is_same_v<T, bool>) {  // std::vector<bool> is packed: unpack first.
      std::vector<uint8_t> bytes(data.begin(), data.end());
      return adopt(Ops::from_host(bytes.data(), bytes.size(), ScalarType::Bool, s, dyn, "from_vector"));
    } else {
      return adopt(Ops::from_host(data.data(), data.size() * sizeof(T), scalar_type_of<T>, s, dyn,
                                  "from_vector"));
    }
  }
  template <class T>
    requires kIsScalarCppType<T>
  static BasicTensor from_vector(const std::vector<T>& data, std::initializer_list<int64_t> sizes) {
    return from_vector(data, IntSpan(sizes.begin(), sizes.size()));
  }
  // Wraps memory of this backend without copying. `deleter`, if any, runs once
  // when the last reference (on any view) goes. A null `data` is InvalidArgument.
  static BasicTensor from_blob(void* data, IntSpan sizes, ScalarType dtype = kDefaultFloat,
                               std::function<void(void*)> deleter = nullptr,
                               std::optional<IntSpan> strides = std::nullopt,
                               TensorShapeDynamism dyn = TensorShapeDynamism::DYNAMIC_BOUND) {
    return adopt(Ops::from_blob(data, sizes, strides, dtype, dyn, std::move(deleter), "from_blob"));
  }

  BasicTensor empty_like(std::optional<ScalarType> dtype = std::nullopt) const {
    const TensorImpl& t = this->checked_impl("empty_like");
    return adopt(Ops::empty(t.sizes(), dtype.value_or(t.scalar_type()), t.shape_dynamism(), "empty_like"));
  }
  BasicTensor zeros_like(std::optional<ScalarType> dtype = std::nullopt) const {
    const TensorImpl& t = this->checked_impl("zeros_like");
    return adopt(Ops::full(t.sizes(), Scalar(0), dtype.value_or(t.scalar_type()), t.shape_dynamism(), "zeros_like"));
  }
  BasicTensor ones_like(std::optional<ScalarType> dtype = std::nullopt) const {
    const TensorImpl& t = this->checked_impl("ones_like");
    return adopt(Ops::full(t.sizes(), Scalar(1), dtype.value_or(t.scalar_type()), t.shape_dynamism(), "ones_like"));
  }
  BasicTensor full_like(Scalar v, std::optional<ScalarType> dtype = std::nullopt) const {
    const TensorImpl& t = this->checked_impl("full_like");
    return adopt(Ops::full(t.sizes(), v, dtype.value_or(t.scalar_type()), t.shape_dynamism(), "full_like"));
  }
  BasicTensor rand_like(std::optional<ScalarType> dtype = std::nullopt) const {
    const TensorImpl& t = this->checked_impl("rand_like");
    return adopt(Ops::random(t.sizes(), contiguous_strides(t.sizes()), dtype.value_or(t.scalar_type()),
                             RandomDist::kUniform, 0, 1, t.shape_dynamism(), "rand_like"));
  }
  BasicTensor randn_like(std::optional<ScalarType> dtype = std::nullopt) const {
    const TensorImpl& t = this->checked_impl("randn_like");
    return adopt(Ops::random(t.sizes(), contiguous_strides(t.sizes()), dtype.value_or(t.scalar_type()),
                             RandomDist::kNormal, 0, 1, t.shape_dynamism(), "randn_like"));
  }
  BasicTensor randint_like(int64_t low, int64_t high, std::optional<ScalarType> dtype = std::nullopt) const {
    const TensorImpl& t = this->checked_impl("randint_like");
    return adopt(Ops::randint(t.sizes(), contiguous_strides(t.sizes()),
                              dtype.value_or(t.scalar_type()), low, high, t.shape_dynamism(),
                              "randint_like"));
  }

  // ---- copies, views and conversions ---------------------------------------
  BasicTensor alias() const { return another_handle("alias"); }
  BasicTensor clone() const { return unary_op("clone", [](const TensorImpl& x) { return Ops::clone(x); }); }
  BasicTensor contiguous() const {
    return unary_op("contiguous", [](const TensorImpl& x) { return Ops::contiguous(x); });
  }
  BasicTensor reshape(IntSpan sizes) const {
    return view_op("reshape", [&](const TensorImpl& x) { return Ops::reshape(x, sizes); });
  }
  BasicTensor reshape(std::initializer_list<int64_t> s) const { return reshape(IntSpan(s.begin(), s.size())); }
  BasicTensor view(IntSpan sizes) const {
    return view_op("view", [&](const TensorImpl& x) { return ValueOrThrow(internal::view(x, sizes)); });
  }
  BasicTensor view(std::initializer_list<int64_t> s) const { return view(IntSpan(s.begin(), s.size())); }
  BasicTensor narrow(int64_t dim, int64_t start, int64_t length) const {
    const TensorImpl& x = this->checked_impl("narrow");
    BasicTensor out = adopt(ValueOrThrow(internal::narrow(x, dim, start, length)));
    if (autograd::internal::wants_grad(x)) [[unlikely]] {
      record(out, [&] { Grad::narrow("narrow", x, dim, start, length, false, out.impl()); });
    }
    return out;
  }
  BasicTensor select(int64_t dim, int64_t index) const {
    const TensorImpl& x = this->checked_impl("select");
    BasicTensor out = adopt(ValueOrThrow(internal::select(x, dim, index)));
    if (autograd::internal::wants_grad(x)) [[unlikely]] record(out, [&] { Grad::narrow("select", x, dim, index, 1, true, out.impl()); });
    return out;
  }
  BasicTensor transpose(int64_t d0, int64_t d1) const {
    const TensorImpl& x = this->checked_impl("transpose");
    BasicTensor out = adopt(ValueOrThrow(internal::transpose(x, d0, d1)));
    if (autograd::internal::wants_grad(x)) [[unlikely]] record(out, [&] { Grad::transpose("transpose", x, d0, d1, out.impl()); });
    return out;
  }
  BasicTensor t() const {
    const TensorImpl& x = this->checked_impl("t");
    if (x.dim() > 2) {
      throw ShapeError(absl::StrFormat("t: expects a tensor with <= 2 dims, but got shape %s",
                                       shape_str(x.sizes())));
    }
    BasicTensor out = adopt(ValueOrThrow(internal::transpose(x, 0, x.dim() < 2 ? 0 : 1)));
    if (autograd::internal::wants_grad(x)) [[unlikely]] record(out, [&] { Grad::transpose("t", x, 0, x.dim() < 2 ? 0 : 1, out.impl()); });
    return out;
  }
  BasicTensor permute(IntSpan dims) const {
    const TensorImpl& x = this->checked_impl("permute");
    BasicTensor out = adopt(ValueOrThrow(internal::permute(x, dims)));
    if (autograd::internal::wants_grad(x)) [[unlikely]] record(out, [&] { Grad::permute(x, dims, out.impl()); });
    return out;
  }
  BasicTensor permute(std::initializer_list<int64_t> d) const { return permute(IntSpan(d.begin(), d.size())); }
  BasicTensor squeeze() const {
    return view_op("squeeze", [](const TensorImpl& x) { return internal::squeeze(x); });
  }
  BasicTensor squeeze(int64_t dim) const {
    return view_op("squeeze", [&](const TensorImpl& x) { return ValueOrThrow(internal::squeeze(x, dim)); });
  }
  BasicTensor unsqueeze(int64_t dim) const {
    return view_op("unsqueeze", [&](const TensorImpl& x) { return ValueOrThrow(internal::unsqueeze(x, dim)); });
  }
  BasicTensor expand(IntSpan sizes) const {
    return unary_op("expand", [&](const TensorImpl& x) { return ValueOrThrow(internal::expand(x, sizes)); });
  }
  BasicTensor expand(std::initializer_list<int64_t> s) const { return expand(IntSpan(s.begin(), s.size())); }
  BasicTensor flatten(int64_t start = 0, int64_t end = -1) const {
    return view_op("flatten", [&](const TensorImpl& x) { return Ops::flatten(x, start, end); });
  }
  // Converts to `dtype` (a copy; a fresh handle to the same tensor if unchanged).
  // Explicit conversions may narrow (float -> int truncates toward zero).
  BasicTensor to(ScalarType dtype) const {
    return unary_op("to", [&](const TensorImpl& x) { return Ops::to_dtype(x, dtype, "to"); });
  }
  // Copies to another backend; the result has the same policy.
  // The copy is out of any graph (a gradient does not cross backends).
  template <class B2>
  BasicTensor<Policy, B2> to() const {
    return BasicTensor<Policy, B2>::adopt(internal::Ops<B2>::template from_other<B>(this->checked_impl("to")));
  }
  // The value of a one-element tensor, converted to T (ATen's item<T>()).
  template <class T> T item() const { return Ops::template item<T>(this->checked_impl("item")); }
  // The elements in row-major order; T must be the tensor's dtype.
  template <class T>
    requires kIsScalarCppType<T>
  std::vector<T> to_vector() const {
    const TensorImpl& t = this->checked_impl("to_vector");
    if (scalar_type_of<T> != t.scalar_type()) {
      throw DTypeError(absl::StrFormat("to_vector<%s>: tensor has dtype %s; convert with to(%s) first",
                                       dtype_name(scalar_type_of<T>), dtype_name(t.scalar_type()),
                                       dtype_name(scalar_type_of<T>)));
    }
    std::vector<char> host = Ops::to_host(t);
    if constexpr (std::is_same_v<T, bool>) {
      std::vector<bool> out(host.size());
      for (size_t i = 0; i < host.size(); ++i) out[i] = host[i] != 0;
      return out;
    } else {
      std::vector<T> out(host.size() / sizeof(T));
      if (!host.empty()) std::memcpy(out.data(), host.data(), host.size());
      return out;
    }
  }
  // PyTorch's repr: "tensor([[1., 2.], [3., 4.]])".
  std::string to_string() const { return Ops::to_string(this->checked_impl("to_string")); }
  friend std::ostream& operator<<(std::ostream& os, const BasicTensor& t) { return os << t.to_string(); }

  // Resizes in place under the ExecuTorch rules of the tensor's dynamism.
  absl::Status resize(IntSpan sizes) const {
    return Ops::resize(const_cast<TensorImpl&>(this->checked_impl("resize")), sizes);
  }

  // ---- elementwise -------------------------------------------------------
  // Operands of two policies: a compile error that says how to convert
  // (core/convert.h), rather than a list of candidates.
#define CUSTODY_ONE_POLICY(name)                                                                    \
  template <class Other>                                                                            \
    requires(!std::same_as<Other, Policy>)                                                          \
  BasicTensor name(const BasicTensor<Other, B>&) const {                                            \
    static_assert(sizeof(Other) == 0,                                                               \
                  "custody: " #name " on tensors of two ownership policies; an op takes one policy: "  \
                  "convert an operand first with custody::share_as<Policy>(t) or "                  \
                  "custody::transfer<Policy>(std::move(t)) (core/convert.h)");                      \
    return *this;                                                                                   \
  }
#define CUSTODY_BINARY(name, code)                                                            \
  CUSTODY_ONE_POLICY(name)                                                                    \
  BasicTensor name(const BasicTensor& o) const { return binary_op(code, #name, o); }          \
  template <ScalarLike S>                                                                     \
  BasicTensor name(S s) const {                                                               \
    return scalar_op(code, #name, Scalar(s), false);                                          \
  }
  CUSTODY_BINARY(add, BinaryOp::kAdd)
  CUSTODY_BINARY(sub, BinaryOp::kSub)
  CUSTODY_BINARY(mul, BinaryOp::kMul)
  CUSTODY_BINARY(div, BinaryOp::kDiv)
  CUSTODY_BINARY(maximum, BinaryOp::kMaximum)
  CUSTODY_BINARY(minimum, BinaryOp::kMinimum)
  CUSTODY_BINARY(pow, BinaryOp::kPow)
  CUSTODY_BINARY(eq, BinaryOp::kEq)
  CUSTODY_BINARY(ne, BinaryOp::kNe)
  CUSTODY_BINARY(lt, BinaryOp::kLt)
  CUSTODY_BINARY(le, BinaryOp::kLe)
  CUSTODY_BINARY(gt, BinaryOp::kGt)
  CUSTODY_BINARY(ge, BinaryOp::kGe)
#undef CUSTODY_BINARY

#define CUSTODY_INPLACE(name, code)                                                          \
  CUSTODY_ONE_POLICY(name)                                                                   \
  BasicTensor name(const BasicTensor& o) const {                                             \
    const TensorImpl& other = o.checked_impl(#name);                                         \
    Ops::binary_(code, writable(#name, &other), other);                                      \
    return another_handle(#name);                                                            \
  }                                                                                          \
  template <ScalarLike S>                                                                    \
  BasicTensor name(S s) const {                                                              \
    Ops::binary_(code, writable(#name), Scalar(s));                                          \
    return another_handle(#name);                                                            \
  }
  CUSTODY_INPLACE(add_, BinaryOp::kAdd)
  CUSTODY_INPLACE(sub_, BinaryOp::kSub)
  CUSTODY_INPLACE(mul_, BinaryOp::kMul)
  CUSTODY_INPLACE(div_, BinaryOp::kDiv)
#undef CUSTODY_INPLACE

  BasicTensor copy_(const BasicTensor& src) const {
    const TensorImpl& from = src.checked_impl("copy_");
    Ops::copy_(writable("copy_", &from), from);
    return another_handle("copy_");
  }
  BasicTensor fill_(Scalar v) const {
    Ops::fill_(writable("fill_"), v, "fill_");
    return another_handle("fill_");
  }
  BasicTensor zero_() const {
    Ops::fill_(writable("zero_"), Scalar(0), "zero_");
    return another_handle("zero_");
  }

#define CUSTODY_UNARY(name, code)                                                                 \
  BasicTensor name() const {                                                                      \
    const TensorImpl& x = this->checked_impl(#name);                                              \
    BasicTensor out = adopt(Ops::unary(code, x));                                                 \
    if (autograd::internal::wants_grad(x)) [[unlikely]] record(out, [&] { Grad::unary(code, x, out.impl()); });         \
    return out;                                                                                   \
  }
  CUSTODY_UNARY(neg, UnaryOp::kNeg)
  CUSTODY_UNARY(abs, UnaryOp::kAbs)
  CUSTODY_UNARY(exp, UnaryOp::kExp)
  CUSTODY_UNARY(log, UnaryOp::kLog)
  CUSTODY_UNARY(sqrt, UnaryOp::kSqrt)
  CUSTODY_UNARY(rsqrt, UnaryOp::kRsqrt)
  CUSTODY_UNARY(tanh, UnaryOp::kTanh)
  CUSTODY_UNARY(sigmoid, UnaryOp::kSigmoid)
  CUSTODY_UNARY(relu, UnaryOp::kRelu)
  CUSTODY_UNARY(gelu, UnaryOp::kGelu)
  CUSTODY_UNARY(silu, UnaryOp::kSilu)
  CUSTODY_UNARY(sin, UnaryOp::kSin)
  CUSTODY_UNARY(cos, UnaryOp::kCos)
#undef CUSTODY_UNARY

  // ---- reductions ------------------------------------------------------------
#define CUSTODY_REDUCE(name, code)                                                         \
  BasicTensor name() const { return reduce_op(code, #name, IntSpan(), false); }            \
  BasicTensor name(int64_t dim, bool keepdim = false) const {                              \
    return reduce_op(code, #name, IntSpan(&dim, 1), keepdim);                              \
  }                                                                                        \
  /* An empty list reduces over every dim, as ATen's sum(x, IntArrayRef{}). */              \
  BasicTensor name(IntSpan dims, bool keepdim = false) const {                             \
    return reduce_op(code, #name, dims, keepdim);                                          \
  }                                                                                        \
  BasicTensor name(std::initializer_list<int64_t> dims, bool keepdim = false) const {      \
    return name(IntSpan(dims.begin(), dims.size()), keepdim);                              \
  }
  CUSTODY_REDUCE(sum, ReduceOp::kSum)
  CUSTODY_REDUCE(mean, ReduceOp::kMean)
  CUSTODY_REDUCE(max, ReduceOp::kMax)
  CUSTODY_REDUCE(min, ReduceOp::kMin)
#undef CUSTODY_REDUCE
  BasicTensor argmax(std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const {
    return adopt(Ops::arg_reduce(ReduceOp::kArgMax, this->checked_impl("argmax"), dim, keepdim));
  }
  BasicTensor argmin(std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const {
    return adopt(Ops::arg_reduce(ReduceOp::kArgMin, this->checked_impl("argmin"), dim, keepdim));
  }
  BasicTensor softmax(int64_t dim) const { return softmax_op("softmax", dim, false); }
  BasicTensor log_softmax(int64_t dim) const { return softmax_op("log_softmax", dim, true); }
  CUSTODY_ONE_POLICY(matmul)
  BasicTensor matmul(const BasicTensor& o) const {
    const TensorImpl& a = this->checked_impl("matmul");
    const TensorImpl& b = o.checked_impl("matmul");
    BasicTensor out = adopt(Ops::matmul(a, b));
    if (autograd::internal::wants_grad(a, b)) [[unlikely]] record(out, [&] { Grad::matmul(a, b, out.impl()); });
    return out;
  }
#undef CUSTODY_ONE_POLICY
  BasicTensor index_select(int64_t dim, const BasicTensor& index) const {
    const TensorImpl& x = this->checked_impl("index_select");
    const TensorImpl& i = index.checked_impl("index_select");
    BasicTensor out = adopt(Ops::index_select(x, dim, i));
    if (autograd::internal::wants_grad(x)) [[unlikely]] record(out, [&] { Grad::index_select(x, dim, i, out.impl()); });
    return out;
  }

  // ---- operators ---------------------------------------------------------------
  friend BasicTensor operator+(const BasicTensor& a, const BasicTensor& b) { return a.add(b); }
  friend BasicTensor operator-(const BasicTensor& a, const BasicTensor& b) { return a.sub(b); }
  friend BasicTensor operator*(const BasicTensor& a, const BasicTensor& b) { return a.mul(b); }
  friend BasicTensor operator/(const BasicTensor& a, const BasicTensor& b) { return a.div(b); }
  friend BasicTensor operator-(const BasicTensor& a) { return a.neg(); }
  template <ScalarLike S> friend BasicTensor operator+(const BasicTensor& a, S s) { return a.add(s); }
  template <ScalarLike S> friend BasicTensor operator-(const BasicTensor& a, S s) { return a.sub(s); }
  template <ScalarLike S> friend BasicTensor operator*(const BasicTensor& a, S s) { return a.mul(s); }
  template <ScalarLike S> friend BasicTensor operator/(const BasicTensor& a, S s) { return a.div(s); }
  template <ScalarLike S> friend BasicTensor operator+(S s, const BasicTensor& a) { return a.add(s); }
  template <ScalarLike S> friend BasicTensor operator*(S s, const BasicTensor& a) { return a.mul(s); }
  template <ScalarLike S> friend BasicTensor operator-(S s, const BasicTensor& a) {
    return a.scalar_op(BinaryOp::kSub, "sub", Scalar(s), true);
  }
  template <ScalarLike S> friend BasicTensor operator/(S s, const BasicTensor& a) {
    return a.scalar_op(BinaryOp::kDiv, "div", Scalar(s), true);
  }

  // Policy-generic early release (G3): see custody::release.
  void release() { this->release_reference(); }

 private:
  template <class F>
  static void record(BasicTensor& out, F&& f) {
    autograd::internal::record(out, std::forward<F>(f));
  }
  // The op helpers: compute, then record when an operand requires grad and
  // grad mode is on (autograd::internal::wants_grad: plain tensors pay one
  // load and one branch).
  BasicTensor binary_op(BinaryOp code, const char* op, const BasicTensor& o) const {
    const TensorImpl& a = this->checked_impl(op);
    const TensorImpl& b = o.checked_impl(op);
    BasicTensor out = adopt(Ops::binary(code, a, b));
    if (autograd::internal::wants_grad(a, b)) [[unlikely]] record(out, [&] { Grad::binary(code, a, b, out.impl()); });
    return out;
  }
  BasicTensor scalar_op(BinaryOp code, const char* op, const Scalar& s, bool scalar_first) const {
    const TensorImpl& a = this->checked_impl(op);
    BasicTensor out = adopt(Ops::binary(code, a, s, scalar_first));
    if (autograd::internal::wants_grad(a)) [[unlikely]] record(out, [&] { Grad::binary_scalar(code, a, s, scalar_first, out.impl()); });
    return out;
  }
  BasicTensor reduce_op(ReduceOp code, const char* op, IntSpan dims, bool keepdim) const {
    const TensorImpl& a = this->checked_impl(op);
    BasicTensor out = adopt(Ops::reduce(code, a, dims, keepdim));
    if (autograd::internal::wants_grad(a)) [[unlikely]] record(out, [&] { Grad::reduce(code, a, dims, keepdim, out.impl()); });
    return out;
  }
  BasicTensor softmax_op(const char* op, int64_t dim, bool log) const {
    const TensorImpl& a = this->checked_impl(op);
    BasicTensor out = adopt(Ops::softmax(a, dim, log));
    if (autograd::internal::wants_grad(a)) [[unlikely]] record(out, [&] { Grad::softmax(a, dim, log, out.impl()); });
    return out;
  }
  // An op whose gradient is the output's gradient (cast and summed to the input).
  template <class F>
  BasicTensor unary_op(const char* op, F&& f) const {
    const TensorImpl& a = this->checked_impl(op);
    BasicTensor out = adopt(f(a));
    if (autograd::internal::wants_grad(a)) [[unlikely]] record(out, [&] { Grad::identity(op, a, out.impl()); });
    return out;
  }
  // An op whose gradient is the output's gradient in the input's shape.
  template <class F>
  BasicTensor view_op(const char* op, F&& f) const {
    const TensorImpl& a = this->checked_impl(op);
    BasicTensor out = adopt(f(a));
    if (autograd::internal::wants_grad(a)) [[unlikely]] record(out, [&] { Grad::reshape(op, a, out.impl()); });
    return out;
  }

 protected:
  template <class P2, class B2> requires OwnershipPolicy<P2> && Backend<B2> friend class BasicTensor;
};

// ---- free functions (ATen style) ----------------------------------------------

template <class T>
concept AnyTensor = requires { typename T::policy_type; typename T::backend_type; } &&
                    std::is_base_of_v<BasicTensor<typename T::policy_type, typename T::backend_type>, T>;

// The tensor type of a handle type: BasicTensor<Policy, Backend> for any handle
// derived from it (e.g. dispose's Disposing<T>), what ops on it return.
template <AnyTensor H>
using TensorOf = BasicTensor<typename H::policy_type, typename H::backend_type>;

// Gives this handle's reference back now, under every policy (G3). Idempotent
// except under `manual`, where a free past zero is a LifetimeError.
template <AnyTensor T> void release(T& t) { t.release(); }

#define CUSTODY_FREE_BINARY(name) \
  template <AnyTensor T> T name(const T& a, const T& b) { return a.name(b); }
CUSTODY_FREE_BINARY(add)
CUSTODY_FREE_BINARY(sub)
CUSTODY_FREE_BINARY(mul)
CUSTODY_FREE_BINARY(div)
CUSTODY_FREE_BINARY(maximum)
CUSTODY_FREE_BINARY(minimum)
CUSTODY_FREE_BINARY(pow)
CUSTODY_FREE_BINARY(eq)
CUSTODY_FREE_BINARY(ne)
CUSTODY_FREE_BINARY(lt)
CUSTODY_FREE_BINARY(le)
CUSTODY_FREE_BINARY(gt)
CUSTODY_FREE_BINARY(ge)
CUSTODY_FREE_BINARY(matmul)
#undef CUSTODY_FREE_BINARY

template <AnyTensor T>
T where(const T& cond, const T& a, const T& b) {
  const TensorImpl& c = cond.checked_impl("where");
  const TensorImpl& x = a.checked_impl("where");
  const TensorImpl& y = b.checked_impl("where");
  T out = T::adopt(internal::Ops<typename T::backend_type>::where(c, x, y));
  if (autograd::internal::wants_grad(x, y)) [[unlikely]] {
    autograd::internal::record(out, [&] { autograd::internal::Functions<TensorOf<T>>::where(c, x, y, out.impl()); });
  }
  return out;
}

// Any allocator: under the gc policy, handles kept on the heap live in gc::vector.
template <AnyTensor T, class Alloc>
T cat(const std::vector<T, Alloc>& tensors, int64_t dim = 0) {
  std::vector<const TensorImpl*> impls;
  impls.reserve(tensors.size());
  bool grad = false;
  for (const T& t : tensors) {
    impls.push_back(&t.checked_impl("cat"));
    grad = grad || autograd::internal::wants_grad(*impls.back());
  }
  T out = T::adopt(internal::Ops<typename T::backend_type>::cat(impls, dim));
  if (grad) [[unlikely]] autograd::internal::record(out, [&] { autograd::internal::Functions<TensorOf<T>>::cat(impls, dim, out.impl()); });
  return out;
}

// Rows of `weight` ([num_embeddings, dim]) for each index: shape indices.sizes() + [dim].
template <AnyTensor T>
T embedding(const T& weight, const T& indices) {
  const TensorImpl& w = weight.checked_impl("embedding");
  const TensorImpl& i = indices.checked_impl("embedding");
  T out = T::adopt(internal::Ops<typename T::backend_type>::embedding(w, i));
  if (autograd::internal::wants_grad(w)) [[unlikely]] {
    autograd::internal::record(out, [&] { autograd::internal::Functions<TensorOf<T>>::embedding(w, i, out.impl()); });
  }
  return out;
}

}  // namespace custody

#include "core/autograd/engine.h"
#include "core/autograd/functions.h"

namespace custody {

// ---- autograd members (after the formulas they use) ------------------------------------

template <class Policy, class B>
  requires OwnershipPolicy<Policy> && Backend<B>
const BasicTensor<Policy, B>& BasicTensor<Policy, B>::requires_grad_(bool requires_grad) const {
  const TensorImpl& t = this->checked_impl("requires_grad_");
  auto* m = t.autograd_meta();
  if (m != nullptr && m->grad_fn) {
    if (requires_grad) return *this;
    throw InvalidArgument(absl::StrFormat(
        "requires_grad_: you can only change requires_grad flags of leaf variables; this tensor "
        "(%s %s) was made by %s. Use detach() for a tensor out of the graph",
        dtype_name(t.scalar_type()), shape_str(t.sizes()), m->grad_fn->name()));
  }
  if (requires_grad && !is_floating_point(t.scalar_type())) {
    throw DTypeError(absl::StrFormat(
        "requires_grad_: only tensors of floating point dtype can require gradients, but got %s %s",
        dtype_name(t.scalar_type()), shape_str(t.sizes())));
  }
  if (m == nullptr && !requires_grad) return *this;
  autograd::internal::AutogradMeta& meta = t.ensure_autograd_meta();
  meta.requires_grad = requires_grad;
  if (requires_grad && !meta.accumulator) {
    meta.accumulator = Ref<autograd::internal::GradAccumulator>(kAdopt, new autograd::internal::GradAccumulator(&t));
  }
  return *this;
}

template <class Policy, class B>
  requires OwnershipPolicy<Policy> && Backend<B>
BasicTensor<Policy, B> BasicTensor<Policy, B>::grad() const {
  const auto* m = this->checked_impl("grad").autograd_meta();
  if (m == nullptr || !m->grad) return BasicTensor();
  return adopt(m->grad);
}

template <class Policy, class B>
  requires OwnershipPolicy<Policy> && Backend<B>
void BasicTensor<Policy, B>::reset_grad() const {
  if (auto* m = this->checked_impl("reset_grad").autograd_meta()) m->grad.reset();
}

template <class Policy, class B>
  requires OwnershipPolicy<Policy> && Backend<B>
void BasicTensor<Policy, B>::backward(const BasicTensor& gradient, std::optional<bool> retain_graph,
                                      bool create_graph) const {
  const TensorImpl& t = this->checked_impl("backward");
  ImplRef g;
  if (gradient.defined()) {
    const TensorImpl& gi = gradient.checked_impl("backward");
    if (!std::equal(gi.sizes().begin(), gi.sizes().end(), t.sizes().begin(), t.sizes().end())) {
      throw ShapeError(absl::StrFormat("backward: the gradient has shape %s, but the tensor has %s",
                                       shape_str(gi.sizes()), shape_str(t.sizes())));
    }
    g = internal::retain(gi);
  } else {
    if (t.numel() != 1) {
      throw ShapeError(absl::StrFormat(
          "backward: grad can be implicitly created only for scalar outputs, but the tensor has "
          "shape %s; pass the gradient of the output",
          shape_str(t.sizes())));
    }
    g = Ops::full(t.sizes(), Scalar(1), t.scalar_type(), TensorShapeDynamism::DYNAMIC_BOUND, "backward");
  }
  std::vector<autograd::internal::Root> roots;
  roots.push_back({internal::retain(t), std::move(g)});
  autograd::internal::run_backward<BasicTensor>(std::move(roots), retain_graph.value_or(create_graph),
                                                create_graph, {}, "backward");
}

template <class Policy, class B>
  requires OwnershipPolicy<Policy> && Backend<B>
void BasicTensor<Policy, B>::throw_in_place_on_graph(const char* op, const TensorImpl& t) {
  throw InvalidArgument(absl::StrFormat(
      "%s: an in-place op on a tensor that requires grad, or with an operand that does (%s %s), "
      "while grad mode is on: the graph records no in-place op; use the out-of-place op, or "
      "change the tensor under custody::NoGradGuard",
      op, dtype_name(t.scalar_type()), shape_str(t.sizes())));
}

namespace autograd {

// The gradients of `outputs` with respect to `inputs` (PyTorch's
// torch::autograd::grad), as fresh handles; the leaves' grad() is left as it
// is. `grad_outputs` may be empty for one-element outputs. An input no
// gradient reaches is an InvalidArgument unless `allow_unused` (then an empty
// handle).
template <AnyTensor T>
HandleVector<TensorOf<T>> grad(const std::vector<T>& outputs, const std::vector<T>& inputs,
                               const std::vector<T>& grad_outputs = {},
                               std::optional<bool> retain_graph = std::nullopt,
                               bool create_graph = false, bool allow_unused = false) {
  using Tensor = TensorOf<T>;
  using Ops = custody::internal::Ops<typename T::backend_type>;
  if (!grad_outputs.empty() && grad_outputs.size() != outputs.size()) {
    throw InvalidArgument(absl::StrFormat("grad: %d outputs but %d grad_outputs", outputs.size(),
                                          grad_outputs.size()));
  }
  std::vector<internal::Root> roots;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const TensorImpl& t = outputs[i].checked_impl("grad");
    ImplRef g;
    if (!grad_outputs.empty()) {
      g = custody::internal::retain(grad_outputs[i].checked_impl("grad"));
    } else if (t.numel() == 1) {
      g = Ops::full(t.sizes(), Scalar(1), t.scalar_type(), TensorShapeDynamism::DYNAMIC_BOUND, "grad");
    } else {
      throw ShapeError(absl::StrFormat(
          "grad: output %d has shape %s; pass grad_outputs for outputs of more than one element", i,
          shape_str(t.sizes())));
    }
    roots.push_back({custody::internal::retain(t), std::move(g)});
  }
  std::vector<const TensorImpl*> in;
  for (const T& t : inputs) in.push_back(&t.checked_impl("grad"));
  std::vector<ImplRef> got = internal::run_backward<Tensor>(
      std::move(roots), retain_graph.value_or(create_graph), create_graph, in, "grad");
  HandleVector<Tensor> result;
  result.reserve(got.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (!got[i] && !allow_unused) {
      for (Tensor& r : result) r.release();
      throw InvalidArgument(absl::StrFormat(
          "grad: input %d (%s %s) was not used in the graph; pass allow_unused=true to get an "
          "empty handle for it",
          i, dtype_name(in[i]->scalar_type()), shape_str(in[i]->sizes())));
    }
    result.push_back(got[i] ? Tensor::adopt(std::move(got[i])) : Tensor());
  }
  return result;
}

}  // namespace autograd

}  // namespace custody

#endif  // CUSTODY_CORE_TENSOR_H_
