// Copyright 2026 The custody Authors.
//
// custody/report/json.h — the one JSON writer of the report and the compare
// tool (report.html's embedded data, compare.json): nlohmann::json, with the
// conventions every file they write keeps.
//
//   report::Json j;
//   j["name"] = "scope";                         // keys stay in the order set
//   j["median_ms"] = report::json_number(1.23456789);  // 1.23457
//   j["ratio"] = report::json_number(0.0 / 0.0);       // null
//   write_file(path, report::json_text(j, 2) + "\n");
//
// Numbers: integers (byte counts, counts of events) are written exactly; a
// measured or derived double goes through json_number(), which keeps six
// significant digits (what a reader compares with a tolerance; a timeline of
// thousands of samples stays small) and writes null for NaN and infinity
// (JSON has neither; a ratio without a peer, a share without a bound).

#ifndef CUSTODY_CUSTODY_REPORT_JSON_H_
#define CUSTODY_CUSTODY_REPORT_JSON_H_

#include <string>

#include "nlohmann/json.hpp"

namespace custody::report {

// Objects keep their keys in insertion order: a reader (and a person) sees
// them as written, and a runner's figures in the order it measured them.
using Json = nlohmann::ordered_json;

// `v` to six significant digits; null when not finite.
Json json_number(double v);

// The text of `j`: compact (indent < 0) or pretty-printed with `indent`
// spaces. Bytes of a string that are not UTF-8 (a symbol from a foreign
// binary) are written as U+FFFD rather than failing the file.
std::string json_text(const Json& j, int indent = -1);

// The compact text of `j` for a <script type="application/json"> element:
// '<', '>' and '&' are written as \u003c, \u003e, \u0026, so no string in it
// can end the element ("</script>") or read as markup. The parsed value is
// the same.
std::string json_script_text(const Json& j);

}  // namespace custody::report

#endif  // CUSTODY_CUSTODY_REPORT_JSON_H_
