// Copyright 2026 The custody Authors.

#include "custody/report/output.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace custody::report {
namespace {

[[noreturn]] void fail(const char* what, const std::string& path, int err) {
  throw OutputError(absl::StrCat("cannot ", what, " '", path, "': ", std::string(std::strerror(err))));
}

}  // namespace

void make_dirs(const std::string& dir) {
  if (dir.empty()) throw OutputError("compare: the output directory is empty (--out=)");
  // Each prefix ending before a '/', then the whole path.
  for (size_t i = 1; i <= dir.size(); ++i) {
    if (i < dir.size() && dir[i] != '/') continue;
    const std::string prefix = dir.substr(0, i);
    if (::mkdir(prefix.c_str(), 0755) == 0 || errno == EEXIST) {
      struct stat st;
      if (::stat(prefix.c_str(), &st) != 0) fail("create the directory", prefix, errno);
      if (!S_ISDIR(st.st_mode)) fail("create the directory", dir, ENOTDIR);
      continue;
    }
    fail("create the directory", prefix, errno);
  }
  if (::access(dir.c_str(), W_OK | X_OK) != 0) fail("write into the directory", dir, errno);
}

std::string temporary_beside(const std::string& path) {
  return absl::StrCat(path, ".tmp.", ::getpid());
}

void write_file(const std::string& path, std::string_view contents) {
  std::string tmp = path + ".tmp.XXXXXX";
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0) fail("create a temporary file for", path, errno);
  size_t done = 0;
  while (done < contents.size()) {
    const ssize_t n = ::write(fd, contents.data() + done, contents.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : EIO;
      ::close(fd);
      ::unlink(tmp.c_str());
      fail("write", path, err);
    }
    done += static_cast<size_t>(n);
  }
  // mkstemp makes the file 0600; results are for everyone who may read the directory.
  if (::fchmod(fd, 0644) != 0 || ::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    fail("write", path, err);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    fail("rename into place", path, err);
  }
}

void rename_into_place(const std::string& temporary, const std::string& path) {
  struct stat st;
  if (::stat(temporary.c_str(), &st) != 0) fail("find the file written for", path, errno);
  if (st.st_size == 0) {
    ::unlink(temporary.c_str());
    throw OutputError(absl::StrCat("the file written for '", path, "' is empty"));
  }
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(temporary.c_str());
    fail("rename into place", path, err);
  }
}

}  // namespace custody::report
