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

namespace custody {

template <class T>
concept ScalarLike = (std::is_arithmetic_v<T> || std::is_same_v<T, Scalar>);

template <class Policy, class B>
  requires OwnershipPolicy<Policy> && Backend<B>
class BasicTensor : public Policy::template Handle<BasicTensor<Policy, B>> {
  using HandleBase = typename Policy::template Handle<BasicTensor<Policy, B>>;
  using Ops = internal::Ops<B>;

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
  BasicTensor clone() const { return adopt(Ops::clone(this->checked_impl("clone"))); }
  BasicTensor contiguous() const { return adopt(Ops::contiguous(this->checked_impl("contiguous"))); }
  BasicTensor reshape(IntSpan sizes) const { return adopt(Ops::reshape(this->checked_impl("reshape"), sizes)); }
  BasicTensor reshape(std::initializer_list<int64_t> s) const { return reshape(IntSpan(s.begin(), s.size())); }
  BasicTensor view(IntSpan sizes) const {
    return adopt(ValueOrThrow(internal::view(this->checked_impl("view"), sizes)));
  }
  BasicTensor view(std::initializer_list<int64_t> s) const { return view(IntSpan(s.begin(), s.size())); }
  BasicTensor narrow(int64_t dim, int64_t start, int64_t length) const {
    return adopt(ValueOrThrow(internal::narrow(this->checked_impl("narrow"), dim, start, length)));
  }
  BasicTensor select(int64_t dim, int64_t index) const {
    return adopt(ValueOrThrow(internal::select(this->checked_impl("select"), dim, index)));
  }
  BasicTensor transpose(int64_t d0, int64_t d1) const {
    return adopt(ValueOrThrow(internal::transpose(this->checked_impl("transpose"), d0, d1)));
  }
  BasicTensor t() const {
    const TensorImpl& x = this->checked_impl("t");
    if (x.dim() > 2) {
      throw ShapeError(absl::StrFormat("t: expects a tensor with <= 2 dims, but got shape %s",
                                       shape_str(x.sizes())));
    }
    return adopt(ValueOrThrow(internal::transpose(x, 0, x.dim() < 2 ? 0 : 1)));
  }
  BasicTensor permute(IntSpan dims) const {
    return adopt(ValueOrThrow(internal::permute(this->checked_impl("permute"), dims)));
  }
  BasicTensor permute(std::initializer_list<int64_t> d) const { return permute(IntSpan(d.begin(), d.size())); }
  BasicTensor squeeze() const { return adopt(internal::squeeze(this->checked_impl("squeeze"))); }
  BasicTensor squeeze(int64_t dim) const {
    return adopt(ValueOrThrow(internal::squeeze(this->checked_impl("squeeze"), dim)));
  }
  BasicTensor unsqueeze(int64_t dim) const {
    return adopt(ValueOrThrow(internal::unsqueeze(this->checked_impl("unsqueeze"), dim)));
  }
  BasicTensor expand(IntSpan sizes) const {
    return adopt(ValueOrThrow(internal::expand(this->checked_impl("expand"), sizes)));
  }
  BasicTensor expand(std::initializer_list<int64_t> s) const { return expand(IntSpan(s.begin(), s.size())); }
  BasicTensor flatten(int64_t start = 0, int64_t end = -1) const {
    return adopt(Ops::flatten(this->checked_impl("flatten"), start, end));
  }
  // Converts to `dtype` (a copy; a fresh handle to the same tensor if unchanged).
  // Explicit conversions may narrow (float -> int truncates toward zero).
  BasicTensor to(ScalarType dtype) const { return adopt(Ops::to_dtype(this->checked_impl("to"), dtype, "to")); }
  // Copies to another backend; the result has the same policy.
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
  BasicTensor name(const BasicTensor& o) const {                                              \
    return adopt(Ops::binary(code, this->checked_impl(#name), o.checked_impl(#name)));        \
  }                                                                                           \
  template <ScalarLike S>                                                                     \
  BasicTensor name(S s) const {                                                               \
    return adopt(Ops::binary(code, this->checked_impl(#name), Scalar(s), false));             \
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
    TensorImpl& self = const_cast<TensorImpl&>(this->checked_impl(#name));                   \
    Ops::binary_(code, self, o.checked_impl(#name));                                         \
    return another_handle(#name);                                                            \
  }                                                                                          \
  template <ScalarLike S>                                                                    \
  BasicTensor name(S s) const {                                                              \
    TensorImpl& self = const_cast<TensorImpl&>(this->checked_impl(#name));                   \
    Ops::binary_(code, self, Scalar(s));                                                     \
    return another_handle(#name);                                                            \
  }
  CUSTODY_INPLACE(add_, BinaryOp::kAdd)
  CUSTODY_INPLACE(sub_, BinaryOp::kSub)
  CUSTODY_INPLACE(mul_, BinaryOp::kMul)
  CUSTODY_INPLACE(div_, BinaryOp::kDiv)
#undef CUSTODY_INPLACE

  BasicTensor copy_(const BasicTensor& src) const {
    TensorImpl& self = const_cast<TensorImpl&>(this->checked_impl("copy_"));
    Ops::copy_(self, src.checked_impl("copy_"));
    return another_handle("copy_");
  }
  BasicTensor fill_(Scalar v) const {
    TensorImpl& self = const_cast<TensorImpl&>(this->checked_impl("fill_"));
    Ops::fill_(self, v, "fill_");
    return another_handle("fill_");
  }
  BasicTensor zero_() const {
    TensorImpl& self = const_cast<TensorImpl&>(this->checked_impl("zero_"));
    Ops::fill_(self, Scalar(0), "zero_");
    return another_handle("zero_");
  }

#define CUSTODY_UNARY(name, code) \
  BasicTensor name() const { return adopt(Ops::unary(code, this->checked_impl(#name))); }
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
  BasicTensor name() const { return adopt(Ops::reduce(code, this->checked_impl(#name), IntSpan(), false)); } \
  BasicTensor name(int64_t dim, bool keepdim = false) const {                              \
    return adopt(Ops::reduce(code, this->checked_impl(#name), IntSpan(&dim, 1), keepdim)); \
  }                                                                                        \
  /* An empty list reduces over every dim, as ATen's sum(x, IntArrayRef{}). */              \
  BasicTensor name(IntSpan dims, bool keepdim = false) const {                             \
    return adopt(Ops::reduce(code, this->checked_impl(#name), dims, keepdim));             \
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
  BasicTensor softmax(int64_t dim) const {
    return adopt(Ops::softmax(this->checked_impl("softmax"), dim, false));
  }
  BasicTensor log_softmax(int64_t dim) const {
    return adopt(Ops::softmax(this->checked_impl("log_softmax"), dim, true));
  }
  CUSTODY_ONE_POLICY(matmul)
  BasicTensor matmul(const BasicTensor& o) const {
    return adopt(Ops::matmul(this->checked_impl("matmul"), o.checked_impl("matmul")));
  }
#undef CUSTODY_ONE_POLICY
  BasicTensor index_select(int64_t dim, const BasicTensor& index) const {
    return adopt(Ops::index_select(this->checked_impl("index_select"), dim,
                                   index.checked_impl("index_select")));
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
    return adopt(Ops::binary(BinaryOp::kSub, a.checked_impl("sub"), Scalar(s), true));
  }
  template <ScalarLike S> friend BasicTensor operator/(S s, const BasicTensor& a) {
    return adopt(Ops::binary(BinaryOp::kDiv, a.checked_impl("div"), Scalar(s), true));
  }

  // Policy-generic early release (G3): see custody::release.
  void release() { this->release_reference(); }

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
  return T::adopt(internal::Ops<typename T::backend_type>::where(
      cond.checked_impl("where"), a.checked_impl("where"), b.checked_impl("where")));
}

// Any allocator: under the gc policy, handles kept on the heap live in gc::vector.
template <AnyTensor T, class Alloc>
T cat(const std::vector<T, Alloc>& tensors, int64_t dim = 0) {
  std::vector<const TensorImpl*> impls;
  impls.reserve(tensors.size());
  for (const T& t : tensors) impls.push_back(&t.checked_impl("cat"));
  return T::adopt(internal::Ops<typename T::backend_type>::cat(impls, dim));
}

// Rows of `weight` ([num_embeddings, dim]) for each index: shape indices.sizes() + [dim].
template <AnyTensor T>
T embedding(const T& weight, const T& indices) {
  return T::adopt(internal::Ops<typename T::backend_type>::embedding(
      weight.checked_impl("embedding"), indices.checked_impl("embedding")));
}

}  // namespace custody

#endif  // CUSTODY_CORE_TENSOR_H_
