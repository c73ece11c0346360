// Secret-scan benchmark: generates rows that look like exported trajectories
// (observations of code, test logs and diffs, JSON tool arguments, assistant
// prose and reasoning, an issue), one secret in every 50th row (the fake
// secrets of tests/testing/fake_secrets.h), and scans them with the shipped
// rules on one thread. Prints MB/s of text scanned (target >= 200 MB/s,
// docs/SECRETS.md) and the hits found. Not part of ctest.
//
//   bench_secrets [megabytes=256] [rules=configs/secret_rules.yaml]
//
// `dense` mode scans one row made only of distinct secrets (AWS key ids, one
// per 20-byte line, about 2.9 million in 58 MB): the worst case for the
// scanner's memory per row. Prints the scan's time and the growth of the
// process's peak RSS over the row itself.
//
//   bench_secrets dense [megabytes=58]
#include <sys/resource.h>
#include <time.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "seragen/secrets/scanner.h"
#include "testing/fake_secrets.h"
#include "testing/source_paths.h"

using namespace seragen;

namespace {

// CPU seconds of this thread: the machine may be shared, so wall time would
// measure the neighbours too.
double ThreadCpuSeconds() {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

const char* kCode =
    "def reserve(self, sku: str, quantity: int) -> Reservation:\n"
    "    \"\"\"Reserve `quantity` units of `sku`; raises OutOfStock when short.\"\"\"\n"
    "    item = self._items.get(sku)\n    if item is None or item.available < quantity:\n"
    "        raise OutOfStock(sku, requested=quantity, available=getattr(item, 'available', 0))\n"
    "    token = self._ledger.begin(sku, quantity)\n    return Reservation(sku=sku, token=token)\n";
const char* kLog =
    "============================= test session starts ==============================\n"
    "platform linux -- Python 3.11.2, pytest-7.2.1, pluggy-1.0.0\nrootdir: /repo\n"
    "tests/test_stock.py::test_reserve_exact PASSED                            [ 33%]\n"
    "tests/test_stock.py::test_reserve_too_many FAILED                         [ 66%]\n"
    "E       AssertionError: assert 3 == 4\nE        +  where 3 = <Reservation sku='A-1' token=7f3a9c>.qty\n";
const char* kDiff =
    "diff --git a/inventory/stock.py b/inventory/stock.py\nindex 3b18e51..a2c4f09 100644\n"
    "--- a/inventory/stock.py\n+++ b/inventory/stock.py\n@@ -41,7 +41,7 @@ class Stock:\n"
    "-        if item is None or item.available < quantity:\n+        if item is None or item.available <= quantity:\n";
const char* kArgs =
    "{\"command\": \"str_replace\", \"path\": \"/repo/inventory/stock.py\", \"old_str\": \"available < "
    "quantity\", \"new_str\": \"available <= quantity\"}";
const char* kProse =
    "The failure comes from the boundary check in Stock.reserve: when the requested quantity equals the "
    "available amount the reservation is refused. I will change the comparison and run the tests again. ";

// One row of about 7 KB in 8 fields: observations, arguments, a patch, prose.
std::vector<std::string> MakeRow(std::size_t i, const std::vector<testing::FakeSecret>& secrets) {
  std::vector<std::string> row;
  row.push_back(std::string(kProse) + kProse);
  for (int k = 0; k < 4; ++k) row.push_back(std::string(kCode) + kCode + kLog);
  row.push_back(std::string(kArgs));
  row.push_back(std::string(kDiff) + kLog + kLog);
  row.push_back(std::string(kProse) + "Reasoning step " + std::to_string(i) + ". " + kProse);
  if (i % 50 == 0) row[2] += "\n$ cat .env\n" + secrets[(i / 50) % secrets.size()].text + "\n";
  return row;
}

// Peak resident set of this process so far, in KiB.
long PeakRssKb() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

// Distinct AWS-key-id-shaped strings, one per line.
std::string DenseField(std::size_t bytes) {
  static const char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  std::string out;
  out.reserve(bytes + 32);
  for (std::uint64_t n = 0; out.size() < bytes; ++n) {
    out += "AKIA";
    std::uint64_t v = n * 0x9E3779B97F4A7C15ull;
    for (int k = 0; k < 16; ++k, v >>= 5) out += kAlphabet[v & 31];
    out += '\n';
  }
  return out;
}

int DenseBench(std::size_t megabytes, const secrets::SecretScanner& scanner) {
  const std::string field = DenseField(megabytes << 20);
  std::vector<std::string_view> views = {field};
  const long before_kb = PeakRssKb();
  const double cpu_start = ThreadCpuSeconds();
  const auto start = std::chrono::steady_clock::now();
  std::size_t hits = 0;
  {
    secrets::RowScan scan = scanner.ScanRow(views);
    hits = scan.hit_count;
  }
  const double cpu = ThreadCpuSeconds() - cpu_start;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double mb = static_cast<double>(field.size()) / (1 << 20);
  std::printf("dense row: %.1f MiB, %zu hits\n", mb, hits);
  std::printf(
      "scan: %.2f s CPU (%.2f s wall); peak RSS %.0f MiB before the scan, +%.0f MiB during it (%.1fx the row)\n", cpu,
      seconds, before_kb / 1024.0, (PeakRssKb() - before_kb) / 1024.0, (PeakRssKb() - before_kb) / 1024.0 / mb);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "dense") {
    auto scanner = secrets::LoadSecretScanner(seragen::testing::SourcePath("configs/secret_rules.yaml"), {});
    if (!scanner.ok()) return std::fprintf(stderr, "%s\n", scanner.status().ToString().c_str()), 1;
    return DenseBench(argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 58, *scanner);
  }
  std::size_t megabytes = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 256;
  std::string rules_path = argc > 2 ? argv[2] : seragen::testing::SourcePath("configs/secret_rules.yaml");
  auto scanner = secrets::LoadSecretScanner(rules_path, {});
  if (!scanner.ok()) return std::fprintf(stderr, "%s\n", scanner.status().ToString().c_str()), 1;

  std::vector<testing::FakeSecret> fakes = testing::FakeSecrets();
  std::vector<std::vector<std::string>> rows;
  std::size_t bytes = 0;
  while (bytes < megabytes << 20) {
    rows.push_back(MakeRow(rows.size(), fakes));
    for (const std::string& f : rows.back()) bytes += f.size();
  }
  std::size_t hits = 0;
  std::size_t redacted_rows = 0;
  auto start = std::chrono::steady_clock::now();
  double cpu_start = ThreadCpuSeconds();
  for (const auto& row : rows) {
    std::vector<std::string_view> views(row.begin(), row.end());
    secrets::RowScan scan = scanner->ScanRow(views);
    hits += scan.hit_count;
    redacted_rows += scan.clean() ? 0 : 1;
  }
  double cpu = ThreadCpuSeconds() - cpu_start;
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  double mb = static_cast<double>(bytes) / (1 << 20);
  std::printf("rows %zu, text %.1f MiB, rules %zu\n", rows.size(), mb, scanner->rules().size());
  std::printf("hits %zu in %zu rows\n", hits, redacted_rows);
  std::printf("scan: %.2f s CPU (%.2f s wall), %.1f MiB/s of CPU time on one thread\n", cpu, seconds, mb / cpu);
  return 0;
}
