#include "testing/peak_memory.h"

#include <fstream>
#include <string>

namespace seragen::testing {
namespace {

std::int64_t baseline_kb = 0;

// The "<field>:   <n> kB" value of /proc/self/status; -1 when absent.
std::int64_t StatusFieldKb(const std::string& field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field + ":", 0) == 0) return std::stoll(line.substr(field.size() + 1));
  }
  return -1;
}

}  // namespace

bool ResetPeakRss() {
  std::ofstream out("/proc/self/clear_refs");
  out << "5";
  out.flush();
  if (!out) return false;
  baseline_kb = StatusFieldKb("VmRSS");
  // The mark is reset to the current RSS; both should now agree closely.
  return baseline_kb >= 0 && StatusFieldKb("VmHWM") <= baseline_kb + 1024;
}

std::int64_t PeakRssGrowthKb() { return StatusFieldKb("VmHWM") - baseline_kb; }

}  // namespace seragen::testing
