// Copyright 2026 The custody Authors.
//
// custody/report/verdict.h — a few sentences on a workload, computed from its
// numbers (model.h), that report.html lists above its tables:
//
//   for (const std::string& s : report::verdict(w)) std::cout << s << "\n";
//   // Fastest: manual, 1.234 ms per training step (0.91× the peer).
//   // Nearest the live-set bound (3.02 MiB): dispose, peak 3.10 MiB = 1.03× the bound; farthest: ...

#ifndef CUSTODY_CUSTODY_REPORT_VERDICT_H_
#define CUSTODY_CUSTODY_REPORT_VERDICT_H_

#include <string>
#include <vector>

#include "custody/report/model.h"

namespace custody::report {

// The fastest contender (and its ratio to the peer), the ones nearest and
// farthest from the live-set bound, the ones holding least and most memory
// past its last use (and the site holding most of the latter), the cheapest
// to write, and any leak. A sentence whose subject no contender has (no
// memory figures, no lines of code counted) is left out.
std::vector<std::string> verdict(const WorkloadData& w);

}  // namespace custody::report

#endif  // CUSTODY_CUSTODY_REPORT_VERDICT_H_
