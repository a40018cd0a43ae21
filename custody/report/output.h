// Copyright 2026 The custody Authors.
//
// custody/report/output.h — writing results so that none is ever silently lost.
//
// Note [Results never silently lost]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// The compare tool measures for minutes; its results must either land whole
// or fail loudly. So: the output directory is created (with its parents)
// before anything is measured, and a failure to create it ends the run at
// once, naming the path and the OS's reason. Every file (JSON, gnuplot data
// and script, PNG) is written under a temporary name in its target directory
// and renamed into place, so a reader never sees half a file and a failed or
// interrupted run leaves the previous results as they were; files are written
// only after every measurement succeeded. A write that fails throws
// OutputError with the path and the reason (the tool exits non-zero), and
// "wrote ..." names only files that exist.

#ifndef CUSTODY_CUSTODY_REPORT_OUTPUT_H_
#define CUSTODY_CUSTODY_REPORT_OUTPUT_H_

#include <stdexcept>
#include <string>
#include <string_view>

namespace custody::report {

// A file or directory the tool could not write; what() names the path and the reason.
class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Creates `dir` and any missing parents (mkdir -p); an existing directory is fine.
void make_dirs(const std::string& dir);

// Writes `contents` to `path` through a temporary file in the same directory,
// renamed into place once whole.
void write_file(const std::string& path, std::string_view contents);

// A temporary path beside `path` for a program that writes the file itself
// (gnuplot's PNG), and the rename that puts it in place once it exists and is
// not empty.
std::string temporary_beside(const std::string& path);
void rename_into_place(const std::string& temporary, const std::string& path);

}  // namespace custody::report

#endif  // CUSTODY_CUSTODY_REPORT_OUTPUT_H_
