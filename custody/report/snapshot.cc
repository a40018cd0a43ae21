// Copyright 2026 The custody Authors.

#include "custody/report/snapshot.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "core/symbolize.h"

namespace custody::report {
namespace {

// Note [A pickle by hand]
// ~~~~~~~~~~~~~~~~~~~~~~~
// The snapshot is dicts, lists, strings and integers, which pickle protocol 2
// writes with a handful of opcodes and no memo: a container is its empty
// opcode, MARK, its items and SETITEMS / APPENDS; an integer BININT (signed
// 32-bit) or LONG1 (little-endian two's complement); a string BINUNICODE
// (length, UTF-8). Python's pickle.load reads it like any other (the test
// reads it with PyTorch's _memory_viz); no library on the C++ side is worth
// depending on for this.
class Pickler {
 public:
  Pickler() { out_ += "\x80\x02"; }  // PROTO 2
  std::string finish() && {
    out_ += '.';  // STOP
    return std::move(out_);
  }

  void dict() { out_ += '}'; }           // EMPTY_DICT
  void list() { out_ += ']'; }           // EMPTY_LIST
  void mark() { out_ += '('; }           // MARK
  void set_items() { out_ += 'u'; }      // SETITEMS: the pairs since the mark into the dict
  void append_items() { out_ += 'e'; }   // APPENDS: the items since the mark onto the list
  void none() { out_ += 'N'; }

  void integer(int64_t v) {
    if (v >= INT32_MIN && v <= INT32_MAX) {
      out_ += 'J';  // BININT
      put_le(static_cast<uint64_t>(static_cast<uint32_t>(static_cast<int32_t>(v))), 4);
      return;
    }
    out_ += '\x8a';  // LONG1: 8 bytes of two's complement
    out_ += '\x08';
    put_le(static_cast<uint64_t>(v), 8);
  }
  void string(std::string_view s) {
    out_ += 'X';  // BINUNICODE
    put_le(s.size(), 4);
    out_.append(s.data(), s.size());
  }

  // key: value pairs, between mark() and set_items().
  void key(std::string_view k) { string(k); }

 private:
  void put_le(uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) out_ += static_cast<char>((v >> (8 * i)) & 0xff);
  }
  std::string out_;
};

// Frames of recorded stacks, symbolized once per program counter.
class Frames {
 public:
  void write(Pickler& p, const sites::Site& site) {
    p.list();
    if (site.empty()) return;
    p.mark();
    for (int i = 0; i < site.size(); ++i) {
      for (const sites::SourceFrame& f : frames(site.frames()[i])) {
        p.dict();
        p.mark();
        p.key("filename");
        p.string(f.file.empty() ? "??" : f.file);
        p.key("line");
        p.integer(f.line);
        p.key("name");
        p.string(f.function);
        p.set_items();
      }
    }
    p.append_items();
  }

 private:
  const std::vector<sites::SourceFrame>& frames(const void* pc) {
    auto [it, inserted] = cache_.try_emplace(pc);
    if (inserted) it->second = sites::symbolize(pc);
    return it->second;
  }
  absl::flat_hash_map<const void*, std::vector<sites::SourceFrame>> cache_;
};

int64_t address_of(const void* p) { return static_cast<int64_t>(reinterpret_cast<uintptr_t>(p)); }

std::string holder_text(const MemoryEvent& e) {
  if (e.by_collector) return "garbage a collection found";
  std::string s = e.holder != nullptr ? e.holder : "its last handle";
  if (e.holder_name != nullptr) s += std::string(" ") + e.holder_name;
  return s;
}

}  // namespace

std::string snapshot_pickle(const std::vector<MemoryEvent>& history) {
  // The blocks alive at the peak: replay the allocations (the peak as
  // HeldDead counts it: the recorded allocations, the first time they peak).
  absl::flat_hash_map<const void*, size_t> open;  // address -> its kAlloc
  int64_t live = 0, peak = 0;
  std::vector<size_t> at_peak;
  bool peak_current = true;  // `at_peak` is the open set at the latest peak
  const auto leave_peak = [&] {  // before the open set shrinks: remember it if it is the peak's
    if (peak_current) return;
    at_peak.clear();
    for (const auto& [address, alloc] : open) at_peak.push_back(alloc);
    peak_current = true;
  };
  for (size_t i = 0; i < history.size(); ++i) {
    const MemoryEvent& e = history[i];
    if (e.address == nullptr) continue;
    if (e.kind == MemoryEventKind::kAlloc) {
      if (auto it = open.find(e.address); it != open.end()) {  // reused without a recorded free
        leave_peak();
        live -= history[it->second].bytes;
        open.erase(it);
      }
      open[e.address] = i;
      live += e.bytes;
      if (live > peak) {
        peak = live;
        peak_current = false;
      }
    } else if (e.kind == MemoryEventKind::kFree) {
      if (auto it = open.find(e.address); it != open.end()) {
        leave_peak();
        live -= history[it->second].bytes;
        open.erase(it);
      }
    }
  }
  leave_peak();
  std::sort(at_peak.begin(), at_peak.end());

  Pickler p;
  Frames frames;
  p.dict();
  p.mark();
  p.key("segments");
  p.list();
  if (!at_peak.empty()) {
    p.mark();
    for (size_t i : at_peak) {
      const MemoryEvent& e = history[i];
      p.dict();
      p.mark();
      p.key("device");
      p.integer(0);
      p.key("address");
      p.integer(address_of(e.address));
      p.key("total_size");
      p.integer(e.bytes);
      p.key("allocated_size");
      p.integer(e.bytes);
      p.key("active_size");
      p.integer(e.bytes);
      p.key("stream");
      p.integer(0);
      p.key("segment_type");
      p.string("large");
      p.key("blocks");
      p.list();
      p.mark();
      {
        p.dict();
        p.mark();
        p.key("size");
        p.integer(e.bytes);
        p.key("state");
        p.string("active_allocated");
        p.key("history");
        p.list();
        p.mark();
        {
          p.dict();
          p.mark();
          p.key("addr");
          p.integer(address_of(e.address));
          p.key("real_size");
          p.integer(e.bytes);
          p.key("frames");
          frames.write(p, e.site);
          p.key("category");
          p.string(category_name(e.category));
          p.key("op");
          if (e.op != nullptr) {
            p.string(e.op);
          } else {
            p.none();
          }
          p.set_items();
        }
        p.append_items();
        p.set_items();
      }
      p.append_items();
      p.set_items();
    }
    p.append_items();
  }
  p.key("device_traces");
  p.list();
  p.mark();
  p.list();  // device 0's trace
  bool any = false;
  for (const MemoryEvent& e : history) {
    if (e.address == nullptr || (e.kind != MemoryEventKind::kAlloc && e.kind != MemoryEventKind::kFree)) {
      continue;
    }
    if (!any) {
      p.mark();
      any = true;
    }
    const bool alloc = e.kind == MemoryEventKind::kAlloc;
    p.dict();
    p.mark();
    p.key("action");
    p.string(alloc ? "alloc" : "free_completed");
    p.key("addr");
    p.integer(address_of(e.address));
    p.key("size");
    p.integer(e.bytes);
    p.key("stream");
    p.integer(0);
    p.key("frames");
    frames.write(p, e.site);
    if (!alloc) {
      p.key("held_by");
      p.string(holder_text(e));
    }
    p.set_items();
  }
  if (any) p.append_items();
  p.append_items();
  p.set_items();
  return std::move(p).finish();
}

}  // namespace custody::report
