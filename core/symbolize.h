// Copyright 2026 The custody Authors.
//
// core/symbolize.h — program counters to `file:line function`, inlined calls
// included, from the DWARF line tables of the binary and its libraries
// (elfutils' libdw). What leak reports, LifetimeErrors and the memory report
// print for a captured site (core/sites.h); called only when one of them is
// produced (Note [Raw frames]).
//
//   for (const sites::SourceFrame& f : sites::symbolize(pc)) std::cout << sites::format(f) << "\n";
//   // workloads/mlp/tensor_ptr.h:31 custody::workloads::mlp::HandleTrainer<...>::step()
//   // (inlined into the frame after it, when the compiler inlined the call)
//
// Note [Lines from libdw]
// ~~~~~~~~~~~~~~~~~~~~~~~
// absl::Symbolize names the function a return address is in, and nothing
// more: five allocations made on five lines of one function all read as that
// function, and a call the compiler inlined is not there at all. libdw (Debian's
// libdw-dev, elfutils) reads the line table — the source line of the call —
// and the DWARF scopes at the address, whose DW_TAG_inlined_subroutine entries
// are the inlined calls, each with the file and line it was called from. It is
// a maintained library every Linux debugger stack uses (eu-stack, systemtap,
// perf's fallback), takes the process's own modules from /proc/self/maps
// (dwfl_linux_proc_report), and costs nothing until a report asks. What it
// needs is DWARF: custody is built with -g1 (line tables and inlined scopes,
// no variables); a frame without DWARF (a system library's) falls back to its
// ELF symbol with no line, and one without a symbol to "??".
//
// Thread-safe (one lock around libdw, whose Dwfl is not); each program counter
// is resolved once and cached.

#ifndef CUSTODY_CORE_SYMBOLIZE_H_
#define CUSTODY_CORE_SYMBOLIZE_H_

#include <string>
#include <string_view>
#include <vector>

namespace custody::sites {

// One source frame of a program counter.
struct SourceFrame {
  std::string function;  // demangled, with its template arguments; "??" when unknown
  std::string file;      // relative to the workspace where it is under it; "" when unknown
  int line = 0;          // 0 when unknown
  bool inlined = false;  // inlined into the frame that follows it for the same pc
};

// The source frames of `pc`, a return address (or the address of an
// instruction when `is_return_address` is false), innermost first: the calls
// inlined at the call site, then the function it is in. Never empty.
std::vector<SourceFrame> symbolize(const void* pc, bool is_return_address = true);

// "file:line function", or "function" without a line.
std::string format(const SourceFrame& f);

// A path as custody prints it: from the workspace root ("workloads/mlp/scope.h")
// when it is under one (Bazel's execroot, an external/custody/ checkout, the
// sandbox's /proc/self/cwd), else as it is.
std::string workspace_relative(std::string_view path);

}  // namespace custody::sites

#endif  // CUSTODY_CORE_SYMBOLIZE_H_
