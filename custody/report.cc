// Copyright 2026 The custody Authors.

#include "custody/report.h"

#include <cstdlib>
#include <iostream>
#include <memory>
#include <mutex>

#include "core/error.h"
#include "custody/tensor.h"
#include "custody/report/session.h"

namespace custody::report {
namespace {

std::mutex g_mu;
std::unique_ptr<Session> g_session;  // guarded by g_mu

std::string title() {
  return std::string("custody report: ") + SelectedPolicy::name + " on " + SelectedBackend::name;
}

}  // namespace

void start() {
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_session != nullptr) throw InvalidArgument("custody::report::start: a report is being recorded already");
  g_session = std::make_unique<Session>(SelectedBackend::stats(), SelectedBackend::name, SelectedPolicy::name);
}

void step() {
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_session != nullptr) g_session->step();
}

bool active() {
  std::lock_guard<std::mutex> lock(g_mu);
  return g_session != nullptr;
}

HeldDead write_html(const std::string& path) {
  std::unique_ptr<Session> s;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    if (g_session == nullptr) {
      throw InvalidArgument("custody::report::write_html: no report is being recorded (call start() first)");
    }
    s = std::move(g_session);
  }
  return s->write_html(path, title());
}

void write_snapshot(const std::string& path) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_session == nullptr) {
    throw InvalidArgument("custody::report::write_snapshot: no report is being recorded (call start() first)");
  }
  g_session->write_snapshot(path);
}

namespace {

bool set(const char* path) { return path != nullptr && *path != '\0'; }

// CUSTODY_REPORT=path, CUSTODY_SNAPSHOT=path: record from start-up, write at exit.
void write_at_exit() {
  if (!active()) return;
  if (const char* snapshot = std::getenv("CUSTODY_SNAPSHOT"); set(snapshot)) {
    try {
      write_snapshot(snapshot);
      std::cerr << "custody::report: wrote " << snapshot << "\n";
    } catch (const std::exception& e) {
      std::cerr << "custody::report: " << e.what() << "\n";
    }
  }
  const char* path = std::getenv("CUSTODY_REPORT");
  if (!set(path)) return;
  try {
    const HeldDead h = write_html(path);
    std::cerr << "custody::report: wrote " << path << " (" << h.held_dead_share() * 100
              << "% of the byte-time held past last use)\n";
  } catch (const std::exception& e) {
    std::cerr << "custody::report: " << e.what() << "\n";
  }
}

const bool g_started_from_environment = [] {
  if (!set(std::getenv("CUSTODY_REPORT")) && !set(std::getenv("CUSTODY_SNAPSHOT"))) return false;
  start();
  std::atexit(write_at_exit);
  return true;
}();

}  // namespace
}  // namespace custody::report
