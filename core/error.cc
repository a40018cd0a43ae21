// Copyright 2026 The custody Authors.

#include "core/error.h"

#include "absl/strings/cord.h"

namespace custody {

absl::Status MakeStatus(ErrorKind kind, absl::StatusCode code, std::string message) {
  absl::Status s(code, message);
  s.SetPayload(kErrorKindUrl, absl::Cord(std::string(1, static_cast<char>('0' + static_cast<int>(kind)))));
  return s;
}

void ThrowError(const absl::Status& status) {
  const std::string msg(status.message());
  auto payload = status.GetPayload(kErrorKindUrl);
  const absl::StatusCode code = status.code();
  if (payload.has_value()) {
    switch (static_cast<ErrorKind>(std::string(*payload)[0] - '0')) {
      case ErrorKind::kShape: throw ShapeError(msg, code);
      case ErrorKind::kDType: throw DTypeError(msg, code);
      case ErrorKind::kLifetime: throw LifetimeError(msg, code);
      case ErrorKind::kOutOfMemory: throw OutOfMemoryError(msg, code);
      case ErrorKind::kDevice: throw DeviceError(msg, code);
      case ErrorKind::kInvalidArgument: throw InvalidArgument(msg, code);
    }
  }
  switch (code) {
    case absl::StatusCode::kResourceExhausted: throw OutOfMemoryError(msg, code);
    case absl::StatusCode::kUnavailable:
    case absl::StatusCode::kInternal:
    case absl::StatusCode::kUnimplemented: throw DeviceError(msg, code);
    case absl::StatusCode::kFailedPrecondition: throw LifetimeError(msg, code);
    default: throw InvalidArgument(msg, code);
  }
}

void ThrowIfError(const absl::Status& status) {
  if (!status.ok()) ThrowError(status);
}

}  // namespace custody
