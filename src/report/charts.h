// Inline SVG charts for the report (no chart library, no script): horizontal
// bars for counts and ratios, vertical bars for histograms. Labels are
// escaped (they come from the run: repository names, categories, statuses).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace seragen::report {

struct Bar {
  std::string label;
  double value = 0;  // bar length (a count, or a ratio in [0, 1] with `ratio`)
  std::string note;  // shown after the bar, e.g. "12/20"
};

struct BarChartOptions {
  bool ratio = false;         // values are ratios: the scale is 0..1, shown as percent
  std::size_t max_bars = 25;  // the rest are summed into "(N more)" when counting, dropped for ratios
  int width = 460;            // pixels
};

// Horizontal bars, one per entry, in the given order.
std::string BarChartSvg(std::string_view title, std::vector<Bar> bars, const BarChartOptions& options = {});

struct Histogram {
  std::vector<std::size_t> counts;  // per bin
  double low = 0, bin_width = 1;    // bin i covers [low + i*w, low + (i+1)*w)
};

// `bins` equal bins over [min, max] of the values (one bin when all equal);
// whole numbers spanning at most `bins` values get one bin per value; empty
// counts for no values.
Histogram MakeHistogram(const std::vector<double>& values, std::size_t bins);

// Vertical bars of a histogram, the x axis labelled with bin edges.
std::string HistogramSvg(std::string_view title, const Histogram& histogram, std::string_view unit = "");

// A chart box (<div class="chart">) with its title and the SVG, or a note
// when there is nothing to draw.
std::string ChartBox(std::string_view title, const std::string& svg);

}  // namespace seragen::report
