// Copyright 2026 The custody Authors.

#include "tools/flags/flags.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "absl/flags/commandlineflag.h"
#include "absl/flags/parse.h"
#include "absl/flags/reflection.h"
#include "absl/flags/usage.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "absl/container/flat_hash_set.h"

namespace custody::flags {
namespace {

// The flags named on the command line (Abseil 20220623 keeps its own record private).
absl::flat_hash_set<std::string>& seen() {
  static auto* s = new absl::flat_hash_set<std::string>;
  return *s;
}

std::string& program() {
  static std::string p = "program";
  return p;
}

// Abseil's own flags, handled by absl::ParseCommandLine.
bool builtin(absl::string_view name) {
  for (const char* b : {"help", "helpfull", "helpshort", "helppackage", "version", "only_check_args",
                        "flagfile", "fromenv", "tryfromenv", "undefok"}) {
    if (name == b) return true;
  }
  return false;
}

// The program's own flags (not those of the libraries it links), as --name.
std::string program_flags() {
  std::vector<std::string> names;
  for (const auto& [name, flag] : absl::GetAllFlags()) {
    if (absl::StrContains(flag->Filename(), "absl/")) continue;
    names.push_back(absl::StrCat("--", name));
  }
  std::sort(names.begin(), names.end());
  return absl::StrJoin(names, " ");
}

}  // namespace

void usage_error(absl::string_view message) {
  std::cerr << program() << ": " << message << "\n";
  std::exit(2);
}

void parse(int argc, char** argv, absl::string_view usage) {
  if (argc > 0) {
    absl::string_view p = argv[0];
    program() = std::string(p.substr(p.rfind('/') + 1));
  }
  absl::SetProgramUsageMessage(usage);
  for (int i = 1; i < argc; ++i) {
    absl::string_view a = argv[i];
    if (a == "--") {
      if (i + 1 < argc) usage_error(absl::StrCat("unexpected argument '", argv[i + 1], "'"));
      break;
    }
    if (!absl::ConsumePrefix(&a, "-") || a.empty()) {
      usage_error(absl::StrCat("unexpected argument '", argv[i], "'; the flags: ", program_flags()));
    }
    absl::ConsumePrefix(&a, "-");
    const size_t eq = a.find('=');
    const absl::string_view name = a.substr(0, eq);
    if (builtin(name)) continue;
    absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
    if (flag == nullptr && absl::StartsWith(name, "no")) {  // --noquick
      absl::CommandLineFlag* b = absl::FindCommandLineFlag(name.substr(2));
      if (b != nullptr && b->IsOfType<bool>() && eq == absl::string_view::npos) {
        seen().insert(std::string(name.substr(2)));
        continue;
      }
    }
    if (flag == nullptr || absl::StrContains(flag->Filename(), "absl/")) {
      usage_error(absl::StrCat("unknown flag --", name, "; the flags: ", program_flags(),
                               " (--help lists them)"));
    }
    seen().insert(std::string(name));
    std::string value;
    if (eq != absl::string_view::npos) {
      value = std::string(a.substr(eq + 1));
    } else if (flag->IsOfType<bool>()) {
      continue;
    } else if (i + 1 < argc) {
      value = argv[++i];  // --flag value
    } else {
      usage_error(absl::StrCat("--", name, " needs a value (default: ", flag->DefaultValue(), ")"));
    }
    std::string error;
    if (!flag->ParseFrom(value, &error)) {
      usage_error(absl::StrCat("--", name, "=", value, ": ", error, " (default: ", flag->DefaultValue(),
                               "; ", flag->Help(), ")"));
    }
  }
  absl::ParseCommandLine(argc, argv);
}

bool specified(absl::string_view flag) { return seen().contains(std::string(flag)); }

std::vector<std::string> checked_list(absl::string_view flag, const std::vector<std::string>& value,
                                      const std::vector<std::string>& allowed) {
  const std::string choices =
      allowed.empty() ? std::string() : absl::StrCat("; allowed: ", absl::StrJoin(allowed, ","));
  if (value.empty()) usage_error(absl::StrCat("--", flag, " is empty", choices));
  for (const std::string& v : value) {
    if (v.empty()) usage_error(absl::StrCat("--", flag, " has an empty element", choices));
    if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), v) == allowed.end()) {
      usage_error(absl::StrCat("--", flag, ": '", v, "' is not one of them", choices));
    }
  }
  return value;
}

int64_t at_least(absl::string_view flag, int64_t value, int64_t min) {
  if (value < min) usage_error(absl::StrCat("--", flag, "=", value, ": must be at least ", min));
  return value;
}

}  // namespace custody::flags
