#include "report/html.h"

#include <catch2/catch.hpp>

#include "report/charts.h"

namespace seragen::report {
namespace {

TEST_CASE("Escape leaves no markup, quote or control character from hostile text", "[report]") {
  std::string e = Escape("<script>alert('x')</script>\"&\x1b[31m\x01ok\n");
  CHECK(e == "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&quot;&amp;\xef\xbf\xbd[31m\xef\xbf\xbdok\n");
  CHECK(Escape("caf\xe9") == "caf\xef\xbf\xbd");  // invalid UTF-8 repaired
}

TEST_CASE("UrlComponent percent-encodes everything but a few plain characters", "[report]") {
  CHECK(UrlComponent("abc-1_2.html") == "abc-1_2.html");
  CHECK(UrlComponent("a/b\"<") == "a%2Fb%22%3C");
}

TEST_CASE("ClippedPre shows a first part, the rest behind an expander, and caps the total", "[report]") {
  std::string text(5000, 'a');
  std::string html = ClippedPre(text, "x", {100, 1000});
  CHECK(html.find("<details class=\"more\"><summary>4,900 more bytes</summary>") != std::string::npos);
  CHECK(html.find("4,000 bytes not shown") != std::string::npos);
  CHECK(std::count(html.begin(), html.end(), 'a') < 1100);
  CHECK(ClippedPre("short", "x") == "<pre class=\"x\">short</pre>");
}

TEST_CASE("Thousands separates groups of three digits", "[report]") {
  CHECK(Thousands(0) == "0");
  CHECK(Thousands(999) == "999");
  CHECK(Thousands(1234567) == "1,234,567");
  CHECK(Thousands(-1000) == "-1,000");
}

TEST_CASE("MakeHistogram puts every value in one of the bins", "[report]") {
  Histogram h = MakeHistogram({0, 1, 2, 3, 4, 10.5}, 5);
  REQUIRE(h.counts.size() == 5);
  std::size_t total = 0;
  for (auto c : h.counts) total += c;
  CHECK(total == 6);
  CHECK(h.counts[4] == 1);  // the maximum lands in the last bin
  CHECK(MakeHistogram({3, 3}, 5).counts == std::vector<std::size_t>{2});
  CHECK(MakeHistogram({}, 5).counts.empty());
  // Whole numbers over a short range: one bin per value.
  Histogram steps = MakeHistogram({6, 7, 7, 9}, 20);
  CHECK(steps.counts == std::vector<std::size_t>{1, 2, 0, 1});
  CHECK(steps.low == 6);
  CHECK(steps.bin_width == 1);
}

TEST_CASE("BarChartSvg escapes labels and folds bars past the maximum", "[report]") {
  std::vector<Bar> bars;
  for (int i = 0; i < 30; ++i) bars.push_back({"<b>repo" + std::to_string(i), 1, ""});
  std::string svg = BarChartSvg("t", bars, {.max_bars = 10});
  CHECK(svg.find("<b>") == std::string::npos);
  CHECK(svg.find("&lt;b&gt;repo0") != std::string::npos);
  CHECK(svg.find("(20 more)") != std::string::npos);
  CHECK(BarChartSvg("t", {}).empty());
}

}  // namespace
}  // namespace seragen::report
