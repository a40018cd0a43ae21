// Copyright 2026 The custody Authors.
//
// backends/aten/internal/aten_dtype.h — custody's ScalarType <-> libtorch's
// c10::ScalarType, for the backend's own translation units (aten.cc,
// interop.cc). Includes a c10 header: never include it from aten.h.
//
//   at::ScalarType a = aten_internal::to_aten_dtype(ScalarType::Half);   // at::kHalf
//   std::optional<ScalarType> c = aten_internal::from_aten_dtype(at::kComplexFloat);  // nullopt
//   std::string n = aten_internal::aten_dtype_name(at::kComplexFloat);   // "complex64 (ComplexFloat)"

#ifndef CUSTODY_BACKENDS_ATEN_INTERNAL_ATEN_DTYPE_H_
#define CUSTODY_BACKENDS_ATEN_INTERNAL_ATEN_DTYPE_H_

#include <c10/core/ScalarType.h>

#include <optional>
#include <string>

#include "core/dtype.h"

namespace custody::aten_internal {

// Every custody dtype but uint16/32/64 has a libtorch 1.13 dtype with the same
// bits per element and the same representation (IEEE half, bfloat16, bool as
// one byte 0/1). libtorch 1.13 has no uint16/32/64 (ATen added them in 2.3):
// those give Undefined, and the aten backend runs their kernels on custody's
// host loops (backends/host/loops.h) instead.
inline c10::ScalarType to_aten_dtype(ScalarType t) {
  switch (t) {
    case ScalarType::Byte: return c10::ScalarType::Byte;
    case ScalarType::Char: return c10::ScalarType::Char;
    case ScalarType::Short: return c10::ScalarType::Short;
    case ScalarType::Int: return c10::ScalarType::Int;
    case ScalarType::Long: return c10::ScalarType::Long;
    case ScalarType::Half: return c10::ScalarType::Half;
    case ScalarType::Float: return c10::ScalarType::Float;
    case ScalarType::Double: return c10::ScalarType::Double;
    case ScalarType::Bool: return c10::ScalarType::Bool;
    case ScalarType::BFloat16: return c10::ScalarType::BFloat16;
    case ScalarType::UInt16:
    case ScalarType::UInt32:
    case ScalarType::UInt64: return c10::ScalarType::Undefined;
  }
  return c10::ScalarType::Undefined;
}

// The custody dtype of a libtorch dtype, or nullopt when custody has none
// (complex, quantized, ...).
inline std::optional<ScalarType> from_aten_dtype(c10::ScalarType t) {
  switch (t) {
    case c10::ScalarType::Byte: return ScalarType::Byte;
    case c10::ScalarType::Char: return ScalarType::Char;
    case c10::ScalarType::Short: return ScalarType::Short;
    case c10::ScalarType::Int: return ScalarType::Int;
    case c10::ScalarType::Long: return ScalarType::Long;
    case c10::ScalarType::Half: return ScalarType::Half;
    case c10::ScalarType::Float: return ScalarType::Float;
    case c10::ScalarType::Double: return ScalarType::Double;
    case c10::ScalarType::Bool: return ScalarType::Bool;
    case c10::ScalarType::BFloat16: return ScalarType::BFloat16;
    default: return std::nullopt;
  }
}

// torch's Python name of a libtorch dtype ("complex64", "int8"), followed by
// c10's own name where they differ ("complex64 (ComplexFloat)").
inline std::string aten_dtype_name(c10::ScalarType t) {
  const char* py = nullptr;
  switch (t) {
    case c10::ScalarType::ComplexHalf: py = "complex32"; break;
    case c10::ScalarType::ComplexFloat: py = "complex64"; break;
    case c10::ScalarType::ComplexDouble: py = "complex128"; break;
    case c10::ScalarType::QInt8: py = "qint8"; break;
    case c10::ScalarType::QUInt8: py = "quint8"; break;
    case c10::ScalarType::QInt32: py = "qint32"; break;
    default: break;
  }
  const std::string c10_name = c10::toString(t);
  if (const std::optional<ScalarType> ours = from_aten_dtype(t)) {
    return std::string(dtype_name(*ours));
  }
  return py != nullptr ? std::string(py) + " (" + c10_name + ")" : c10_name;
}

}  // namespace custody::aten_internal

#endif  // CUSTODY_BACKENDS_ATEN_INTERNAL_ATEN_DTYPE_H_
