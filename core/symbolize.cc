// Copyright 2026 The custody Authors.

#include "core/symbolize.h"

#include <cxxabi.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"

namespace custody::sites {
namespace {

std::string demangle(const char* name) {
  if (name == nullptr) return "??";
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> d(abi::__cxa_demangle(name, nullptr, nullptr, &status), &std::free);
  return status == 0 && d != nullptr ? std::string(d.get()) : std::string(name);
}

// The DIE a declaration-less DIE stands for: through DW_AT_abstract_origin
// (an inlined or out-of-line instance) and DW_AT_specification (a member
// defined outside its class), to the DIE that sits in its namespace or class.
Dwarf_Die origin_of(Dwarf_Die die) {
  for (int hops = 0; hops < 8; ++hops) {
    Dwarf_Attribute a;
    Dwarf_Die next;
    if ((dwarf_attr(&die, DW_AT_abstract_origin, &a) != nullptr ||
         dwarf_attr(&die, DW_AT_specification, &a) != nullptr) &&
        dwarf_formref_die(&a, &next) != nullptr) {
      die = next;
    } else {
      break;
    }
  }
  return die;
}

// The name of a subprogram or inlined call: its linkage name demangled (the
// qualified name, template arguments and parameters included); without one
// (-g1 leaves some out), its DW_AT_name qualified by the namespaces and
// classes around its declaration.
std::string die_name(Dwarf_Die* die) {
  Dwarf_Attribute a;
  for (int at : {DW_AT_linkage_name, DW_AT_MIPS_linkage_name}) {
    if (dwarf_attr_integrate(die, at, &a) != nullptr) {
      if (const char* s = dwarf_formstring(&a)) return demangle(s);
    }
  }
  const char* name = dwarf_attr_integrate(die, DW_AT_name, &a) != nullptr ? dwarf_formstring(&a) : nullptr;
  if (name == nullptr) return "??";
  std::string qualified = name;
  Dwarf_Die origin = origin_of(*die);
  Dwarf_Die* scopes = nullptr;
  const int n = dwarf_getscopes_die(&origin, &scopes);
  for (int i = 1; i < n; ++i) {
    const int tag = dwarf_tag(&scopes[i]);
    if (tag != DW_TAG_namespace && tag != DW_TAG_class_type && tag != DW_TAG_structure_type &&
        tag != DW_TAG_union_type) {
      continue;
    }
    const char* outer = dwarf_diename(&scopes[i]);
    qualified = absl::StrCat(outer != nullptr ? outer : "(anonymous namespace)", "::", qualified);
  }
  std::free(scopes);
  return qualified;
}

class Symbolizer {
 public:
  std::vector<SourceFrame> lookup(uintptr_t addr) ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    if (auto it = cache_.find(addr); it != cache_.end()) return it->second;
    std::vector<SourceFrame> frames = resolve(addr);
    cache_.emplace(addr, frames);
    return frames;
  }

 private:
  // The process's modules, reported again when an address is in none of
  // them (a library loaded since: dlopen).
  Dwfl_Module* module_of(uintptr_t addr) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    for (int attempt = 0; attempt < 2; ++attempt) {
      if (dwfl_ == nullptr || attempt == 1) report();
      if (dwfl_ == nullptr) return nullptr;
      if (Dwfl_Module* m = dwfl_addrmodule(dwfl_, addr)) return m;
    }
    return nullptr;
  }

  void report() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    static const Dwfl_Callbacks kCallbacks = {
        .find_elf = dwfl_linux_proc_find_elf,
        .find_debuginfo = dwfl_standard_find_debuginfo,
        .section_address = nullptr,
        .debuginfo_path = nullptr,
    };
    if (dwfl_ == nullptr) dwfl_ = dwfl_begin(&kCallbacks);
    if (dwfl_ == nullptr) return;
    dwfl_report_begin(dwfl_);
    dwfl_linux_proc_report(dwfl_, getpid());
    dwfl_report_end(dwfl_, nullptr, nullptr);
  }

  // Note [Scopes by function]
  // ~~~~~~~~~~~~~~~~~~~~~~~~~
  // The scopes at an address, innermost first: the inlined calls and blocks
  // that contain it, up to the function. dwarf_getscopes finds them by
  // walking the compilation unit's whole DIE tree, once to find the
  // innermost and once more (dwarf_getscopes_die) for the DIEs above it: in a
  // unit that instantiates every policy's templates that is milliseconds per
  // address, and a report symbolizes hundreds. So each unit's functions are
  // listed once (dwarf_getfuncs: their address ranges, sorted), an address
  // finds its function by binary search, and only that function's subtree is
  // descended, through the children whose ranges contain the address. A
  // function the list misses (one defined inside another) falls back to
  // dwarf_getscopes.
  struct FunctionRange {
    Dwarf_Addr low, high;
    Dwarf_Die die;
  };

  const std::vector<FunctionRange>& functions_of(Dwarf_Die* cu) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    auto [it, inserted] = functions_.try_emplace(cu->cu);
    if (inserted) {
      std::vector<FunctionRange>& fs = it->second;
      dwarf_getfuncs(
          cu,
          [](Dwarf_Die* f, void* arg) -> int {
            auto* out = static_cast<std::vector<FunctionRange>*>(arg);
            Dwarf_Addr base = 0, start = 0, end = 0;
            ptrdiff_t offset = 0;
            while ((offset = dwarf_ranges(f, offset, &base, &start, &end)) > 0) {
              if (start < end) out->push_back(FunctionRange{start, end, *f});
            }
            return DWARF_CB_OK;
          },
          &fs, 0);
      std::sort(fs.begin(), fs.end(), [](const FunctionRange& a, const FunctionRange& b) { return a.low < b.low; });
    }
    return it->second;
  }

  std::vector<Dwarf_Die> scopes_at(Dwarf_Die* cu, Dwarf_Addr pc) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    std::vector<Dwarf_Die> path;
    const std::vector<FunctionRange>& fs = functions_of(cu);
    auto it = std::upper_bound(fs.begin(), fs.end(), pc, [](Dwarf_Addr a, const FunctionRange& f) { return a < f.low; });
    if (it != fs.begin() && pc < (--it)->high) {
      path.push_back(it->die);
      for (bool deeper = true; deeper;) {
        deeper = false;
        Dwarf_Die child;
        if (dwarf_child(&path.back(), &child) != 0) break;
        do {
          const int tag = dwarf_tag(&child);
          if ((tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block) && dwarf_haspc(&child, pc) == 1) {
            path.push_back(child);
            deeper = true;
            break;
          }
        } while (dwarf_siblingof(&child, &child) == 0);
      }
      return std::vector<Dwarf_Die>(path.rbegin(), path.rend());
    }
    // The innermost scope at the address, then the DIEs it is nested in: an
    // inlined call sits inside the function it was inlined into
    // (dwarf_getscopes alone continues with the inlined function's own
    // declaration scopes instead).
    Dwarf_Die* scopes = nullptr;
    int n = dwarf_getscopes(cu, pc, &scopes);
    if (n > 0) {
      Dwarf_Die inner = scopes[0];
      std::free(scopes);
      scopes = nullptr;
      n = dwarf_getscopes_die(&inner, &scopes);
    }
    for (int i = 0; i < n; ++i) path.push_back(scopes[i]);
    std::free(scopes);
    return path;
  }

  std::vector<SourceFrame> resolve(uintptr_t addr) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    std::vector<SourceFrame> out;
    Dwfl_Module* mod = module_of(addr);
    if (mod == nullptr) return {SourceFrame{"??", "", 0, false}};
    // The line of the address itself: the innermost frame's.
    std::string file;
    int line = 0;
    if (Dwfl_Line* l = dwfl_module_getsrc(mod, addr)) {
      if (const char* f = dwfl_lineinfo(l, nullptr, &line, nullptr, nullptr, nullptr)) file = workspace_relative(f);
    }
    Dwarf_Addr bias = 0;
    if (Dwarf_Die* cu = dwfl_module_addrdie(mod, addr, &bias)) {
      Dwarf_Files* files = nullptr;
      size_t nfiles = 0;
      if (dwarf_getsrcfiles(cu, &files, &nfiles) != 0) files = nullptr;
      const std::vector<Dwarf_Die> scopes = scopes_at(cu, addr - bias);
      for (size_t i = 0; i < scopes.size(); ++i) {
        Dwarf_Die* s = const_cast<Dwarf_Die*>(&scopes[i]);
        const int tag = dwarf_tag(s);
        if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram) continue;
        const bool inlined = tag == DW_TAG_inlined_subroutine;
        out.push_back(SourceFrame{die_name(s), file, line, inlined});
        if (!inlined) break;
        // The function this call was inlined into continues at the call's site.
        Dwarf_Attribute a;
        Dwarf_Word v = 0;
        file.clear();
        line = 0;
        if (files != nullptr && dwarf_formudata(dwarf_attr(s, DW_AT_call_file, &a), &v) == 0 && v < nfiles) {
          if (const char* f = dwarf_filesrc(files, v, nullptr, nullptr)) file = workspace_relative(f);
        }
        if (dwarf_formudata(dwarf_attr(s, DW_AT_call_line, &a), &v) == 0) line = static_cast<int>(v);
      }
    }
    // The outermost function is named by its ELF symbol, exact and qualified
    // (-g1 leaves the scopes of a DWARF name out), or by the DWARF when the
    // symbol table has nothing at the address; without DWARF (a system
    // library's frame) it is all there is.
    const char* sym = dwfl_module_addrname(mod, addr);
    if (out.empty() || out.back().inlined) {
      out.push_back(SourceFrame{demangle(sym), file, line, false});
    } else if (sym != nullptr) {
      out.back().function = demangle(sym);
    }
    return out;
  }

  absl::Mutex mu_;
  Dwfl* dwfl_ ABSL_GUARDED_BY(mu_) = nullptr;  // never ended: lives as long as the process
  absl::flat_hash_map<uintptr_t, std::vector<SourceFrame>> cache_ ABSL_GUARDED_BY(mu_);
  // Each compilation unit's functions by address (Note [Scopes by function]).
  absl::flat_hash_map<const void*, std::vector<FunctionRange>> functions_ ABSL_GUARDED_BY(mu_);
};

Symbolizer& symbolizer() {
  static auto* s = new Symbolizer();  // never destroyed: reports may be written from atexit handlers
  return *s;
}

}  // namespace

std::vector<SourceFrame> symbolize(const void* pc, bool is_return_address) {
  const auto addr = reinterpret_cast<uintptr_t>(pc);
  if (addr == 0) return {SourceFrame{"??", "", 0, false}};
  // A return address is the instruction after the call: look up the call.
  return symbolizer().lookup(is_return_address ? addr - 1 : addr);
}

std::string format(const SourceFrame& f) {
  if (f.file.empty() || f.line == 0) return f.function;
  return absl::StrCat(f.file, ":", f.line, " ", f.function);
}

std::string workspace_relative(std::string_view path) {
  for (std::string_view root : {std::string_view("/execroot/custody/"), std::string_view("/proc/self/cwd/")}) {
    if (const size_t at = path.rfind(root); at != std::string_view::npos) {
      path.remove_prefix(at + root.size());
      break;
    }
  }
  while (path.starts_with("./")) path.remove_prefix(2);
  if (path.starts_with("external/custody/")) path.remove_prefix(17);
  return std::string(path);
}

}  // namespace custody::sites
