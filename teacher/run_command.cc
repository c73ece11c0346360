#include "teacher/run_command.h"

#include <pthread.h>
#include <signal.h>

#include <cstdio>
#include <string>

#include "teacher/server.h"

namespace seragen::teacher {
namespace {

std::string DescribeLatency(const LatencyModel& m) {
  switch (m.kind) {
    case LatencyModel::Kind::kZero: return "zero";
    case LatencyModel::Kind::kFixed: return "fixed " + std::to_string(static_cast<int>(m.fixed_ms)) + " ms";
    case LatencyModel::Kind::kUniform:
      return "uniform " + std::to_string(static_cast<int>(m.min_ms)) + "-" +
             std::to_string(static_cast<int>(m.max_ms)) + " ms";
    case LatencyModel::Kind::kExponential:
      return "exponential, mean " + std::to_string(static_cast<int>(m.mean_ms)) + " ms";
  }
  return "zero";
}

}  // namespace

std::string TeacherBanner(const TeacherOptions& o, int port) {
  std::string b;
  b += "seragen-teacher: a SCRIPTED STAND-IN for a model, not a language model.\n";
  b += "  It follows a fixed, seeded script so the pipeline can be demonstrated and tested without a GPU.\n";
  b += "  OpenAI-compatible endpoint: http://" + o.bind_address + ":" + std::to_string(port) + "/v1\n";
  b += "  model id: " + o.model_id + "   seed: " + std::to_string(o.seed) +
       "   context window: " + std::to_string(o.context_window) + " tokens\n";
  if (!o.script_path.empty())
    b += "  replaying the turns of script " + o.script_path + " (other request kinds: rule-based)\n";
  b +=
      "  latency: " + DescribeLatency(o.latency) + "   injected fault rate: " + std::to_string(o.faults.Total()) + "\n";
  if (o.strict != StrictMode::kOff) {
    b += "  strict mode: refuses requests as " + std::string(StrictModeName(o.strict)) + " would" +
         (o.strict == StrictMode::kLlamaCpp && !o.jinja ? " (started without --jinja)" : "") + "\n";
  }
  b += "  Stop with Ctrl-C.\n";
  return b;
}

int RunTeacherCommand(const TeacherOptions& options) {
  sigset_t wanted, previous;
  sigemptyset(&wanted);
  sigaddset(&wanted, SIGINT);
  sigaddset(&wanted, SIGTERM);
  // Block before the io threads start so they inherit the mask and the
  // signals reach sigwait below.
  pthread_sigmask(SIG_BLOCK, &wanted, &previous);
  Server server;
  auto port = server.Start(options);
  if (!port.ok()) {
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    std::fprintf(stderr, "seragen-teacher: %s\n", port.status().ToString().c_str());
    return 2;
  }
  std::fputs(TeacherBanner(options, *port).c_str(), stdout);
  std::fflush(stdout);
  int signal_number = 0;
  sigwait(&wanted, &signal_number);
  server.Stop();
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  RequestCounts counts = server.Counts();
  std::fprintf(stdout, "seragen-teacher: stopped after %llu requests", static_cast<unsigned long long>(counts.total));
  for (const auto& [kind, n] : counts.by_kind)
    std::fprintf(stdout, ", %s=%llu", kind.c_str(), static_cast<unsigned long long>(n));
  std::fprintf(stdout, ", rejected=%llu\n", static_cast<unsigned long long>(counts.rejected));
  return 0;
}

}  // namespace seragen::teacher
