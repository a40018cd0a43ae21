// Copyright 2026 The custody Authors.
//
// tests/conformance/oracle_common.cc — the parts of oracle.h that need no
// oracle: printing HostTensors and comparing them (Close). Linked by every
// test that includes oracle.h, whichever implementation of oracle() and
// oracle_nn() it links (:oracle, libtorch; :oracle_onednn, custody's oneDNN
// backend).

#include "tests/conformance/oracle.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace custody::testing {
namespace {

std::string shape_string(const std::vector<int64_t>& s) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < s.size(); ++i) os << (i ? ", " : "") << s[i];
  os << "]";
  return os.str();
}

}  // namespace

std::ostream& operator<<(std::ostream& os, const HostTensor& t) {
  const std::streamsize precision = os.precision(8);
  os << dtype_name(t.dtype) << shape_string(t.sizes) << " {";
  const size_t n = std::min<size_t>(t.values.size(), 16);
  for (size_t i = 0; i < n; ++i) os << (i ? ", " : "") << t.values[i];
  if (t.values.size() > n) os << ", ... (" << t.values.size() << " values)";
  os << "}";
  os.precision(precision);
  return os;
}

::testing::AssertionResult Close(const HostTensor& ours, const HostTensor& ref, double rtol,
                                 double atol) {
  if (ours.dtype != ref.dtype) {
    return ::testing::AssertionFailure()
           << "dtype: ours " << dtype_name(ours.dtype) << ", oracle " << dtype_name(ref.dtype)
           << "\n  ours:   " << ours << "\n  oracle: " << ref;
  }
  if (ours.sizes != ref.sizes) {
    return ::testing::AssertionFailure()
           << "sizes: ours " << shape_string(ours.sizes) << ", oracle " << shape_string(ref.sizes)
           << "\n  ours:   " << ours << "\n  oracle: " << ref;
  }
  if (ours.values.size() != ref.values.size()) {
    return ::testing::AssertionFailure() << "value count: ours " << ours.values.size()
                                         << ", oracle " << ref.values.size();
  }
  int64_t bad = 0;
  double worst = 0;
  std::ostringstream first;
  first.precision(10);
  for (size_t i = 0; i < ref.values.size(); ++i) {
    const double a = ours.values[i], b = ref.values[i];
    bool ok;
    if (std::isnan(a) || std::isnan(b)) {
      ok = std::isnan(a) && std::isnan(b);
    } else if (std::isinf(a) || std::isinf(b)) {
      ok = a == b;
    } else {
      const double err = std::fabs(a - b);
      ok = err <= atol + rtol * std::fabs(b);
      if (!ok) worst = std::max(worst, err);
    }
    if (!ok) {
      if (bad < 8) first << "\n  [" << i << "] ours " << a << ", oracle " << b;
      ++bad;
    }
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << bad << " of " << ref.values.size() << " values differ (rtol " << rtol << ", atol "
         << atol << ", largest finite error " << worst << ") for " << dtype_name(ref.dtype)
         << shape_string(ref.sizes) << ":" << first.str();
}

}  // namespace custody::testing
