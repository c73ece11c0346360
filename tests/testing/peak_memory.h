// Peak resident memory of the test process, for tests that bound what a call
// may load. Linux only (/proc/self).
#pragma once

#include <cstdint>

namespace seragen::testing {

// Resets the kernel's peak-RSS mark (VmHWM) to the current RSS, so a later
// PeakRssGrowthKb() measures only what happens after this call. Returns false
// when the kernel refuses (then growth figures are upper bounds of nothing:
// tests should skip their memory assertion).
bool ResetPeakRss();

// Current peak RSS (VmHWM) minus the RSS at the last ResetPeakRss(), in KiB.
std::int64_t PeakRssGrowthKb();

}  // namespace seragen::testing
