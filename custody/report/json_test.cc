// Copyright 2026 The custody Authors.
//
// The JSON conventions of the report and the compare tool (custody/report/json.h):
// six significant digits and null for what is not finite, integers exact, keys
// in the order written, and text that cannot end the <script> element it is
// embedded in.

#include "custody/report/json.h"

#include <cstdint>
#include <limits>
#include <string>

#include "gtest/gtest.h"

namespace {

using custody::report::Json;
using custody::report::json_number;
using custody::report::json_script_text;
using custody::report::json_text;

TEST(JsonTest, NumbersKeepSixDigitsAndNotFiniteIsNull) {
  EXPECT_EQ(json_text(json_number(1.23456789)), "1.23457");
  EXPECT_EQ(json_text(json_number(0.000123456789)), "0.000123457");
  EXPECT_EQ(json_text(json_number(2.5)), "2.5");
  EXPECT_EQ(json_text(json_number(std::numeric_limits<double>::quiet_NaN())), "null");
  EXPECT_EQ(json_text(json_number(std::numeric_limits<double>::infinity())), "null");
  EXPECT_EQ(json_text(json_number(-std::numeric_limits<double>::infinity())), "null");
  EXPECT_DOUBLE_EQ(Json::parse(json_text(json_number(1234567.0))).get<double>(), 1234570.0);
  EXPECT_TRUE(json_number(3.0).is_number_float());
}

TEST(JsonTest, IntegersAreExact) {
  Json j;
  j["bytes"] = int64_t{9007199254740993};  // 2^53 + 1: not a double
  EXPECT_EQ(json_text(j), R"({"bytes":9007199254740993})");
}

TEST(JsonTest, KeysStayInTheOrderWritten) {
  Json j;
  j["workers"] = 2;
  j["requests_per_s"] = json_number(10);
  j["p50_ms"] = json_number(1);
  j["p99_ms"] = json_number(3);
  EXPECT_EQ(json_text(j), R"({"workers":2,"requests_per_s":10.0,"p50_ms":1.0,"p99_ms":3.0})");
  EXPECT_EQ(json_text(j, 2), "{\n  \"workers\": 2,\n  \"requests_per_s\": 10.0,\n  \"p50_ms\": 1.0,\n"
                             "  \"p99_ms\": 3.0\n}");
}

TEST(JsonTest, StringsAreEscapedAndInvalidUtf8Replaced) {
  const Json j = std::string("a\"b\\c\nd\x01 \xff");
  EXPECT_EQ(json_text(j), "\"a\\\"b\\\\c\\nd\\u0001 \xef\xbf\xbd\"");
}

TEST(JsonTest, ScriptTextCannotEndTheScriptElement) {
  Json j;
  j["name"] = "</script><b>&amp;";
  const std::string text = json_script_text(j);
  EXPECT_EQ(text, R"({"name":"\u003c/script\u003e\u003cb\u003e\u0026amp;"})");
  EXPECT_EQ(Json::parse(text), j);
}

}  // namespace
