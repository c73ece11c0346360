#include "seragen/base/log.h"

#include "seragen/base/status_line.h"
#include "seragen/base/terminal_text.h"

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <memory>
#include <mutex>
#include <vector>

namespace seragen::log {
namespace {

struct LogState {
  std::mutex mu;
  std::shared_ptr<spdlog::logger> logger;
  std::shared_ptr<spdlog::sinks::basic_file_sink_mt> file_sink;
  std::vector<std::string> secrets;  // longest first
  std::vector<std::string*> captures;
  std::string status_line;  // shown at the bottom of stderr; empty: none
};

// Moves to the start of the line and clears it (a terminal's CR + EL).
constexpr std::string_view kClearLine = "\r\033[K";

void PutStderr(std::string_view a, std::string_view b = {}) {
  std::fwrite(a.data(), 1, a.size(), stderr);
  std::fwrite(b.data(), 1, b.size(), stderr);
  std::fflush(stderr);
}

std::atomic<int> g_level{static_cast<int>(Level::kInfo)};

LogState& State() {
  static LogState* state = [] {
    auto* s = new LogState();
    auto sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
    s->logger = std::make_shared<spdlog::logger>("seragen", sink);
    s->logger->set_pattern("%Y-%m-%dT%H:%M:%S.%eZ %v", spdlog::pattern_time_type::utc);
    s->logger->set_level(spdlog::level::trace);
    s->logger->flush_on(spdlog::level::trace);
    return s;
  }();
  return *state;
}

std::string_view LevelName(Level level) {
  switch (level) {
    case Level::kTrace: return "TRACE";
    case Level::kDebug: return "DEBUG";
    case Level::kInfo: return "INFO ";
    case Level::kWarn: return "WARN ";
    case Level::kError: return "ERROR";
    case Level::kOff: return "OFF  ";
  }
  return "?";
}

void Redact(const std::vector<std::string>& secrets, std::string& line) {
  for (const std::string& s : secrets) {
    std::size_t pos = 0;
    while ((pos = line.find(s, pos)) != std::string::npos) {
      line.replace(pos, s.size(), "***");
      pos += 3;
    }
  }
}

}  // namespace

void SetLevel(Level level) { g_level = static_cast<int>(level); }
Level GetLevel() { return static_cast<Level>(g_level.load()); }

bool ParseLevel(std::string_view name, Level* out) {
  static const std::pair<std::string_view, Level> kNames[] = {{"trace", Level::kTrace}, {"debug", Level::kDebug},
                                                              {"info", Level::kInfo},   {"warn", Level::kWarn},
                                                              {"error", Level::kError}, {"off", Level::kOff}};
  for (const auto& [n, l] : kNames) {
    if (n == name) {
      *out = l;
      return true;
    }
  }
  return false;
}

bool SetLogFile(const std::string& path) {
  LogState& st = State();
  std::lock_guard<std::mutex> lock(st.mu);
  auto& sinks = st.logger->sinks();
  if (st.file_sink) {
    sinks.erase(std::remove(sinks.begin(), sinks.end(), st.file_sink), sinks.end());
    st.file_sink.reset();
  }
  if (path.empty()) return true;
  try {
    st.file_sink = std::make_shared<spdlog::sinks::basic_file_sink_mt>(path, /*truncate=*/false);
  } catch (const spdlog::spdlog_ex&) {
    return false;
  }
  sinks.push_back(st.file_sink);
  return true;
}

void AddSecret(std::string value) {
  if (value.size() < 4) return;
  LogState& st = State();
  std::lock_guard<std::mutex> lock(st.mu);
  if (std::find(st.secrets.begin(), st.secrets.end(), value) != st.secrets.end()) return;
  st.secrets.push_back(std::move(value));
  std::sort(st.secrets.begin(), st.secrets.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
}

void Write(Level level, std::string_view component, std::string_view task_id, std::string_view message) {
  if (level < GetLevel() || level == Level::kOff) return;
  std::string line;
  line.reserve(message.size() + component.size() + task_id.size() + 16);
  line += LevelName(level);
  line += " [";
  line += component;
  line += ']';
  if (!task_id.empty()) {
    line += " task=";
    line += task_id;
  }
  line += ' ';
  // Messages quote outside text (endpoint answers, paths, command output):
  // printed on a terminal, it must not steer it.
  line += TerminalSafe(message, message.size());
  LogState& st = State();
  std::lock_guard<std::mutex> lock(st.mu);
  Redact(st.secrets, line);
  for (std::string* capture : st.captures) {
    *capture += line;
    *capture += '\n';
  }
  if (!st.status_line.empty()) PutStderr(kClearLine);
  st.logger->log(spdlog::level::info, "{}", line);
  if (!st.status_line.empty()) PutStderr(st.status_line);
}

void SetStatusLine(std::string_view line) {
  LogState& st = State();
  std::lock_guard<std::mutex> lock(st.mu);
  if (line.empty() && st.status_line.empty()) return;
  st.status_line = line;
  PutStderr(kClearLine, line);
}

ScopedCapture::ScopedCapture(std::string* target) {
  LogState& st = State();
  std::lock_guard<std::mutex> lock(st.mu);
  st.captures.push_back(target);
}

ScopedCapture::~ScopedCapture() {
  LogState& st = State();
  std::lock_guard<std::mutex> lock(st.mu);
  // Remove the most recently added capture (captures nest).
  if (!st.captures.empty()) st.captures.pop_back();
}

}  // namespace seragen::log
