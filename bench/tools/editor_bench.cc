// Prints the in-process file tool's throughput: path resolution, views of a
// 2,000-line file, str_replace (+undo) on it, inserts, and a directory
// listing over 1,000 files.
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "seragen/tools/file_editor.h"
#include "seragen/tools/tool_messages.h"
#include "testing/source_paths.h"

using namespace seragen;
using namespace seragen::tools;
using Clock = std::chrono::steady_clock;

namespace {

template <typename F>
double OpsPerSecond(int n, F&& op) {
  auto start = Clock::now();
  for (int i = 0; i < n; ++i) op(i);
  double s = std::chrono::duration<double>(Clock::now() - start).count();
  return n / s;
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 2000;
  auto messages = ToolMessages::Load(seragen::testing::SourcePath("prompts/tools/messages.yaml"));
  if (!messages.ok()) {
    std::fprintf(stderr, "%s\n", messages.status().ToString().c_str());
    return 1;
  }
  char pattern[] = "/tmp/seragen-editor-bench-XXXXXX";
  std::string root = ::mkdtemp(pattern);
  {
    std::ofstream big(root + "/big.py");
    for (int i = 0; i < 2000; ++i) big << "def function_" << i << "(x):\n\treturn x + " << i << "\n";
  }
  for (int d = 0; d < 20; ++d) {
    std::filesystem::create_directories(root + "/pkg" + std::to_string(d));
    for (int f = 0; f < 50; ++f) {
      std::ofstream(root + "/pkg" + std::to_string(d) + "/m" + std::to_string(f) + ".py") << "x = 1\n";
    }
  }
  WorkspacePaths paths(root, "/repo");
  ToolOptions options;
  options.undo_depth = 4;
  FileEditor editor(paths, &*messages, options);

  double resolve = OpsPerSecond(n * 10, [&](int) { (void)paths.Resolve("/repo/pkg7/m3.py"); });
  double view_range = OpsPerSecond(n, [&](int i) {
    (void)editor.View("/repo/big.py", std::vector<long long>{1 + i % 3000, 1 + i % 3000 + 40});
  });
  double view_full = OpsPerSecond(n / 10, [&](int) { (void)editor.View("/repo/big.py", std::nullopt); });
  double replace = OpsPerSecond(n, [&](int i) {
    const std::string from = "return x + " + std::to_string(i % 2000) + "\n";
    (void)editor.StrReplace("/repo/big.py", from, "return x - " + std::to_string(i % 2000) + "\n");
    (void)editor.UndoEdit("/repo/big.py");
  });
  double insert =
      OpsPerSecond(n, [&](int i) { (void)editor.Insert("/repo/big.py", i % 100, std::string("# note\n")); });
  double listing = OpsPerSecond(n / 10, [&](int) { (void)editor.View("/repo", std::nullopt); });

  std::printf("editor bench (4,000-line file, 1,000-file tree):\n");
  std::printf("  path resolve                 %10.0f ops/s\n", resolve);
  std::printf("  view 41-line range           %10.0f ops/s\n", view_range);
  std::printf("  view whole file (clipped)    %10.0f ops/s\n", view_full);
  std::printf("  str_replace + undo_edit      %10.0f pairs/s\n", replace);
  std::printf("  insert                       %10.0f ops/s\n", insert);
  std::printf("  directory view, 2 levels     %10.0f ops/s\n", listing);
  std::error_code ec;
  std::filesystem::remove_all(root, ec);
  return 0;
}
