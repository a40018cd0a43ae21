// Copyright 2026 The custody Authors.
//
// core/error.h — the exceptions that custody's user-facing API throws.
//
// Every error is a `custody::Error` carrying an `absl::StatusCode` and a message
// that names the op, the shapes and dtypes involved and, where one exists, what
// to do about it. Backends and internal code return `absl::Status`; the
// boundary turns a non-OK status into the matching subclass with
// `ThrowIfError`. Bad input never aborts.
//
//   ShapeError        shapes that do not broadcast, bad dims, numel overflow
//   DTypeError        unsupported or mismatched dtypes, forbidden casts
//   LifetimeError     use after release/dispose/finalize, double free, no scope
//   OutOfMemoryError  an allocation failed (after any retry the policy makes)
//   DeviceError       the backend is unavailable or a device call failed
//   InvalidArgument   everything else a caller got wrong (null pointers, indices)

#ifndef CUSTODY_CORE_ERROR_H_
#define CUSTODY_CORE_ERROR_H_

#include <stdexcept>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"

namespace custody {

class Error : public std::runtime_error {
 public:
  Error(absl::StatusCode code, const std::string& message)
      : std::runtime_error(message), code_(code) {}
  absl::StatusCode code() const { return code_; }
  // The error as an absl::Status (for code that prefers statuses).
  absl::Status status() const { return absl::Status(code_, what()); }

 private:
  absl::StatusCode code_;
};

#define CUSTODY_DEFINE_ERROR(Name, default_code)                         \
  class Name : public Error {                                            \
   public:                                                               \
    explicit Name(const std::string& message,                           \
                  absl::StatusCode code = absl::StatusCode::default_code) \
        : Error(code, message) {}                                        \
  };

CUSTODY_DEFINE_ERROR(ShapeError, kInvalidArgument)
CUSTODY_DEFINE_ERROR(DTypeError, kInvalidArgument)
CUSTODY_DEFINE_ERROR(LifetimeError, kFailedPrecondition)
CUSTODY_DEFINE_ERROR(OutOfMemoryError, kResourceExhausted)
CUSTODY_DEFINE_ERROR(DeviceError, kUnavailable)
CUSTODY_DEFINE_ERROR(InvalidArgument, kInvalidArgument)
#undef CUSTODY_DEFINE_ERROR

// Status payload URL that records which Error subclass a status stands for, so
// that a status produced deep inside a backend comes back as the right type.
inline constexpr char kErrorKindUrl[] = "custody.dev/error-kind";

enum class ErrorKind { kShape, kDType, kLifetime, kOutOfMemory, kDevice, kInvalidArgument };

// Builds a status that ThrowIfError turns into the subclass for `kind`.
absl::Status MakeStatus(ErrorKind kind, absl::StatusCode code, std::string message);

template <class... Args>
absl::Status ShapeStatus(const absl::FormatSpec<Args...>& fmt, const Args&... args) {
  return MakeStatus(ErrorKind::kShape, absl::StatusCode::kInvalidArgument,
                    absl::StrFormat(fmt, args...));
}
// A shape change the tensor's rules do not allow (resize past its dynamism or
// rank): ShapeError when thrown, status code kUnimplemented — ExecuTorch's
// Error::NotSupported for the same violations.
template <class... Args>
absl::Status ShapeNotSupportedStatus(const absl::FormatSpec<Args...>& fmt, const Args&... args) {
  return MakeStatus(ErrorKind::kShape, absl::StatusCode::kUnimplemented,
                    absl::StrFormat(fmt, args...));
}
template <class... Args>
absl::Status DTypeStatus(const absl::FormatSpec<Args...>& fmt, const Args&... args) {
  return MakeStatus(ErrorKind::kDType, absl::StatusCode::kInvalidArgument,
                    absl::StrFormat(fmt, args...));
}

// Throws the Error subclass that matches `status`; does nothing for OK.
void ThrowIfError(const absl::Status& status);
[[noreturn]] void ThrowError(const absl::Status& status);

template <class T>
T ValueOrThrow(absl::StatusOr<T> v) {
  if (!v.ok()) ThrowError(v.status());
  return *std::move(v);
}

}  // namespace custody

// Returns early with `expr`'s status when it is not OK (in Status-returning code).
#define CUSTODY_RETURN_IF_ERROR(expr)              \
  do {                                             \
    ::absl::Status _custody_status = (expr);       \
    if (!_custody_status.ok()) return _custody_status; \
  } while (0)

#endif  // CUSTODY_CORE_ERROR_H_
