// Copyright 2026 The custody Authors.

#include "custody/report/json.h"

#include <cmath>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"

namespace custody::report {

Json json_number(double v) {
  if (!std::isfinite(v)) return nullptr;
  // Through its six-digit decimal text: nlohmann writes the shortest text
  // that reads back as the same double, here at most those six digits.
  double rounded = v;
  if (!absl::SimpleAtod(absl::StrFormat("%.6g", v), &rounded)) rounded = v;
  return rounded;
}

std::string json_text(const Json& j, int indent) {
  return j.dump(indent, ' ', /*ensure_ascii=*/false, Json::error_handler_t::replace);
}

std::string json_script_text(const Json& j) {
  const std::string text = json_text(j);
  std::string out;
  out.reserve(text.size());
  // Outside strings JSON has none of the three characters, so each one is
  // inside a string, where its \u escape reads back as itself.
  for (char c : text) {
    switch (c) {
      case '<': out += "\\u003c"; break;
      case '>': out += "\\u003e"; break;
      case '&': out += "\\u0026"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace custody::report
