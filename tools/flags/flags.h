// Copyright 2026 The custody Authors.
//
// tools/flags/flags.h — command lines of custody's programs (the compare tool,
// the examples), parsed by Abseil Flags.
//
// Note [Flags]
// ~~~~~~~~~~~~
// Each program defines its flags with ABSL_FLAG in its own file and calls
// custody::flags::parse(argc, argv, usage) first. Before Abseil parses, every
// flag the command line names is looked up and its value parsed, so that an
// unknown flag or a bad value (a number that is not one, or does not fit) is
// a usage error: "<program>: <what>", naming the flag, its default and the
// program's flags, with exit status 2 (Abseil alone would exit 1). After
// parsing, programs check what types cannot (an empty list, a name outside
// its allowed values, a count below 1) with the helpers below, which fail the
// same way. `--help` and `--helpfull` print the flags Abseil generated
// (exit 1, Abseil's convention); docs/reference.md's option lists are compared with
// `--helpfull` by //tools/flags:readme_options_test.
//
//   ABSL_FLAG(int64_t, tokens, 16, "tokens to generate (>= 1)");
//   int main(int argc, char** argv) {
//     custody::flags::parse(argc, argv, "llama: greedy decoding ...");
//     const int64_t tokens = custody::flags::at_least("tokens", absl::GetFlag(FLAGS_tokens), 1);

#ifndef CUSTODY_TOOLS_FLAGS_FLAGS_H_
#define CUSTODY_TOOLS_FLAGS_FLAGS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace custody::flags {

// Parses the command line (see Note [Flags]); positional arguments are a
// usage error. `usage` starts the --help text.
void parse(int argc, char** argv, absl::string_view usage);

// "<program>: <message>" on stderr, then exit status 2.
[[noreturn]] void usage_error(absl::string_view message);

// Whether `--<flag>` was on the command line.
bool specified(absl::string_view flag);

// A list flag's value: not empty, each element one of `allowed` (when
// `allowed` is not empty). A usage error naming the flag and the allowed
// values otherwise.
std::vector<std::string> checked_list(absl::string_view flag, const std::vector<std::string>& value,
                                      const std::vector<std::string>& allowed);

// An integer flag's value, at least `min`; a usage error otherwise.
int64_t at_least(absl::string_view flag, int64_t value, int64_t min);

}  // namespace custody::flags

#endif  // CUSTODY_TOOLS_FLAGS_FLAGS_H_
