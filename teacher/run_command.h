// `seragen-teacher`: run the scripted teacher in the foreground.
//
// Flags the CLI should map onto TeacherOptions (see docs/TEACHER.md):
//   --config FILE       the settings file (settings.h: LoadTeacherSettingsFile)
//   --port N            default 8765 for the command (0 = any free port)
//   --bind ADDR         default 127.0.0.1
//   --seed S            default 0
//   --latency SPEC      ParseLatencySpec, e.g. "exp:800,tail=0.02x20"; default zero
//   --faults SPEC       ParseFaultSpec, e.g. "503=0.02,429=0.01"; default none
//   --reasoning MODE    none | reasoning | reasoning_content | think
//   --context-window N  max_model_len and the overflow threshold
//   --threads N         io threads (default 1)
//   --prompts DIR       prompt files directory
//   --request-log FILE  JSONL digest per request
#pragma once

#include "teacher/options.h"

namespace seragen::teacher {

// Starts the server, prints a banner that says this is a scripted stand-in
// and not a model, and blocks until SIGINT or SIGTERM; then stops and prints
// request counts. Returns a process exit code (0, or 2 when it cannot start,
// after printing the error to stderr). Must be called before other threads
// that could receive these signals are started.
int RunTeacherCommand(const TeacherOptions& options);

// The banner RunTeacherCommand prints (exposed for its test).
std::string TeacherBanner(const TeacherOptions& options, int port);

}  // namespace seragen::teacher
