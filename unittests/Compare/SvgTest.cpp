//===- SvgTest.cpp - The charts of the HTML reports -----------------------===//

// The SVG helpers are private to the library; they are tested through their
// header.
#include "../../lib/Compare/Svg.h"

#include "gtest/gtest.h"

using namespace mlir::ho;

TEST(Svg, EscapesMarkup) {
  EXPECT_EQ(svg::escape("a<b & \"c\">"), "a&lt;b &amp; &quot;c&quot;&gt;");
}

TEST(Svg, NumbersForTicks) {
  EXPECT_EQ(svg::formatNumber(0), "0");
  EXPECT_EQ(svg::formatNumber(2.5), "2.5");
  EXPECT_EQ(svg::formatNumber(400), "400");
  EXPECT_EQ(svg::formatNumber(0.30000000000000004), "0.3");
  EXPECT_EQ(svg::formatNumber(1e-16), "0");
}

TEST(Svg, NiceTicksCoverTheRangeInRoundSteps) {
  EXPECT_EQ(svg::getNiceTicks(0, 19.9, 4),
            (std::vector<double>{0, 5, 10, 15, 20}));
  EXPECT_EQ(svg::getNiceTicks(0, 837, 4), (std::vector<double>{0, 500, 1000}));
  std::vector<double> ticks = svg::getNiceTicks(10, 400, 6);
  EXPECT_LE(ticks.front(), 10);
  EXPECT_GE(ticks.back(), 400);
  EXPECT_EQ(ticks[1] - ticks[0], 100);
  // An empty range still gets an axis.
  EXPECT_GE(svg::getNiceTicks(3, 3, 4).size(), 2u);
}

TEST(Svg, UnitsShowTheLargestValueAsAtLeastOne) {
  EXPECT_EQ(svg::chooseTimeUnit(0.0199).suffix, "ms");
  EXPECT_EQ(svg::chooseTimeUnit(7.5).suffix, "s");
  EXPECT_EQ(svg::chooseTimeUnit(2e-4).suffix, "us");
  EXPECT_EQ(svg::chooseByteUnit(61.93e9).suffix, "GB");
  EXPECT_EQ(svg::chooseByteUnit(61.93e9).divisor, 1e9);
  EXPECT_EQ(svg::chooseByteUnit(512).suffix, "B");
}

TEST(Svg, LineChartDrawsEverySeriesAndMarksHollowPoints) {
  svg::LineChart chart;
  chart.name = "test";
  chart.title = "A <test>";
  chart.xLabel = "x";
  chart.yLabel = "y";
  svg::Series series{"s", "#123456"};
  series.points = {{0, 1}, {1, 2}, {2, 4}};
  series.dots = true;
  series.hollow = {false, false, true};
  chart.series = {series};
  chart.reference = {{"budget", 3.0}};
  std::string text;
  llvm::raw_string_ostream os(text);
  svg::writeLineChart(os, chart);
  EXPECT_NE(text.find("data-plot=\"test\""), std::string::npos);
  EXPECT_NE(text.find("A &lt;test&gt;"), std::string::npos);
  // The segment between fitting points is solid; the one to the point that
  // does not fit is faint and dotted.
  EXPECT_NE(text.find("<polyline class=\"mark\""), std::string::npos);
  EXPECT_NE(text.find("<polyline class=\"mark misses\""), std::string::npos);
  EXPECT_NE(text.find("class=\"reference\""), std::string::npos);
  EXPECT_NE(text.find("(does not fit)"), std::string::npos);
  size_t dots = 0;
  for (size_t at = text.find("<circle"); at != std::string::npos;
       at = text.find("<circle", at + 1))
    ++dots;
  EXPECT_EQ(dots, 3u);
}

TEST(Svg, LogTicksAreDecadesOrOneTwoFive) {
  EXPECT_EQ(svg::getLogTicks(3, 700),
            (std::vector<double>{2, 5, 10, 20, 50, 100, 200, 500, 1000}));
  EXPECT_EQ(svg::getLogTicks(0.5, 2e5),
            (std::vector<double>{0.1, 1, 10, 100, 1000, 1e4, 1e5, 1e6}));
  // Within one decade, there are still ticks on both sides.
  std::vector<double> ticks = svg::getLogTicks(2, 3);
  EXPECT_LE(ticks.front(), 2);
  EXPECT_GE(ticks.back(), 3);
  EXPECT_TRUE(svg::spansDecades(1, 300));
  EXPECT_FALSE(svg::spansDecades(10, 40));
  EXPECT_FALSE(svg::spansDecades(0, 300));
}

TEST(Svg, LogScaleMapsDecadesEvenly) {
  svg::Scale x = {1, 1000, 0, 300, /*log=*/true};
  EXPECT_DOUBLE_EQ(x(1), 0);
  EXPECT_DOUBLE_EQ(x(10), 100);
  EXPECT_DOUBLE_EQ(x(1000), 300);
}

TEST(Svg, LogChartSaysSoOnItsAxis) {
  svg::LineChart chart;
  chart.name = "log";
  chart.xLabel = "bandwidth";
  chart.xUnit = {1, "GB/s"};
  chart.yLabel = "slowdown";
  chart.xLog = chart.yLog = true;
  svg::Series series{"s", "#123456"};
  series.points = {{1, 40}, {10, 4}, {100, 1}};
  chart.series = {series};
  std::string text;
  llvm::raw_string_ostream os(text);
  svg::writeLineChart(os, chart);
  EXPECT_NE(text.find("bandwidth (GB/s, log scale)"), std::string::npos);
  EXPECT_NE(text.find("slowdown (log scale)"), std::string::npos);
}
