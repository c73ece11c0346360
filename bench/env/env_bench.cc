// Environment preparation, first run (setup: venv + editable install of a
// generated src-layout package) against a second run (cache reused, no setup
// command), both through `seragen env check`. Prints seconds for each. As root
// it then does the same with a container image: the minimal Debian archive of
// scripts/make-test-image (built first if not cached), unpacked by skopeo and
// umoci on the first run, reused on the second.
//
//   build/bench/env/bench_env [path/to/seragen]   (default: build/seragen)
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "testing/source_paths.h"

namespace {

double TimeCommand(const std::string& command, int* rc) {
  const auto start = std::chrono::steady_clock::now();
  *rc = std::system(command.c_str());
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string Output(const std::string& command) {
  std::string out;
  if (FILE* p = ::popen(command.c_str(), "r")) {
    char buf[4096];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    if (::pclose(p) != 0) return "";
  }
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

// First unpack of an image against its reuse; returns false when a run failed.
bool BenchImage(const std::string& seragen, const std::string& dir) {
  if (::geteuid() != 0) {
    std::printf("image: skipped (scripts/make-test-image needs root)\n");
    return true;
  }
  const std::string archive = Output(seragen::testing::SourcePath("scripts/make-test-image 2>/dev/null"));
  if (archive.empty()) {
    std::printf("image: skipped (scripts/make-test-image failed: mmdebstrap, network?)\n");
    return true;
  }
  struct stat st;
  const double mb = ::stat(archive.c_str(), &st) == 0 ? static_cast<double>(st.st_size) / (1 << 20) : 0;
  std::ofstream(dir + "/image.yaml") << "run: {dir: '" << dir << "/run'}\nrepos: [{name: benchpkg, source: '" << dir
                                     << "/repo'}]\nllm: {model: m, endpoints: [{base_url: 'http://127.0.0.1:9/v1'}]}\n"
                                     << "environment: {image: '" << archive << "', cache_dir: '" << dir
                                     << "/image-cache', check: cat /etc/os-release}\n";
  const std::string check = seragen + " env check -c " + dir + "/image.yaml >/dev/null 2>&1";
  int rc1 = 0, rc2 = 0;
  const double first = TimeCommand(check, &rc1);
  const double second = TimeCommand(check, &rc2);
  std::printf("env check with an image, first run (unpack a %.0f MB docker-save archive): %.2f s (exit %d)\n", mb,
              first, rc1);
  std::printf("env check with an image, second run (unpacked root reused):               %.2f s (exit %d)\n", second,
              rc2);
  return rc1 == 0 && rc2 == 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string seragen = argc > 1 ? argv[1] : "build/seragen";
  char tmpl[] = "/tmp/seragen-env-bench-XXXXXX";
  const std::string dir = ::mkdtemp(tmpl);
  ::chmod(dir.c_str(), 0711);  // the sandbox uids must reach the cache
  const std::string make_repo =
      "set -e; mkdir -p " + dir + "/repo/src/benchpkg && cd " + dir +
      "/repo && printf 'def start():\\n    return 1\\n' > src/benchpkg/__init__.py && "
      "printf '[build-system]\\nrequires = [\"setuptools\"]\\nbuild-backend = \"setuptools.build_meta\"\\n[project]\\n"
      "name = \"benchpkg\"\\nversion = \"0.1\"\\n[tool.setuptools.packages.find]\\nwhere = [\"src\"]\\n' > "
      "pyproject.toml "
      "&& git init -q -b main . && git -c user.name=b -c user.email=b@example.invalid add -A && "
      "git -c user.name=b -c user.email=b@example.invalid commit -qm init";
  if (std::system(make_repo.c_str()) != 0) return 1;
  std::ofstream(dir + "/config.yaml") << "run: {dir: '" << dir << "/run'}\nrepos: [{name: benchpkg, source: '" << dir
                                      << "/repo'}]\nllm: {model: m, endpoints: [{base_url: 'http://127.0.0.1:9/v1'}]}\n"
                                      << "environment:\n  cache_dir: '" << dir
                                      << "/cache'\n  check: python -c 'import benchpkg'\n"
                                      << "  setup:\n    - python3 -m venv --system-site-packages /env\n"
                                      << "    - /env/bin/pip install -q --no-build-isolation --no-index -e /repo\n"
                                      << "  env: {PATH: /env/bin:/usr/bin:/bin}\n";
  const std::string check = seragen + " env check -c " + dir + "/config.yaml >/dev/null 2>&1";
  int rc1 = 0, rc2 = 0;
  const double first = TimeCommand(check, &rc1);
  const double second = TimeCommand(check, &rc2);
  std::printf("env check, first run (setup: venv + editable install): %.2f s (exit %d)\n", first, rc1);
  std::printf("env check, second run (cached prefix reused):          %.2f s (exit %d)\n", second, rc2);
  const bool image_ok = BenchImage(seragen, dir);
  std::system(("rm -rf " + dir).c_str());
  return rc1 == 0 && rc2 == 0 && image_ok ? 0 : 1;
}
