// torchlet::report: classification metrics against hand-computed and scikit-learn numbers,
// the report's text pinned, SVG charts checked for well-formed XML (and by xmllint when it is
// installed), one circle per drawable point, labels, escaping and awkward data; sparklines.
#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "testing.h"
#include "torchlet/io/file.h"
#include "torchlet/report/chart.h"
#include "torchlet/report/metrics.h"

namespace torchlet::report {
namespace {

using testing::error_of;

void expect_near_all(const std::vector<double>& got, const std::vector<double>& want,
                     const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], 1e-12) << what << "[" << i << "]";
}

TEST(Metrics, HandComputedBinaryCase) {
  // Class 0: tp 1, fp 1 (row 4), fn 1 (row 1). Class 1: tp 2, fp 1, fn 1.
  const ClassificationReport r =
      classification_report({0, 0, 1, 1, 1}, {0, 1, 1, 1, 0}, {"no", "yes"});
  expect_near_all(r.precision, {0.5, 2.0 / 3.0}, "precision");
  expect_near_all(r.recall, {0.5, 2.0 / 3.0}, "recall");
  expect_near_all(r.f1, {0.5, 2.0 / 3.0}, "f1");
  EXPECT_EQ(r.support, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(r.confusion, (std::vector<std::vector<int64_t>>{{1, 1}, {1, 2}}));
  EXPECT_DOUBLE_EQ(r.accuracy, 0.6);
}

// The numbers scikit-learn 1.2.1 gives for this case (Debian's /usr/bin/python3):
//   y_true = [0, 0, 0, 1, 1, 2, 2, 2, 2, 0, 3, 3, 1]
//   y_pred = [0, 1, 0, 1, 2, 2, 2, 0, 2, 0, 1, 2, 1]
//   p, r, f, s = precision_recall_fscore_support(y_true, y_pred, labels=[0, 1, 2, 3],
//                                                zero_division=0)
//   accuracy_score(y_true, y_pred); confusion_matrix(y_true, y_pred, labels=[0, 1, 2, 3])
//   classification_report(y_true, y_pred, labels=[0, 1, 2, 3],
//                         target_names=['a', 'b', 'c', 'd'], digits=3, zero_division=0)
// Class 'd' is never predicted, so its precision is undefined and reported as 0.
const std::vector<int64_t> kTrue = {0, 0, 0, 1, 1, 2, 2, 2, 2, 0, 3, 3, 1};
const std::vector<int64_t> kPred = {0, 1, 0, 1, 2, 2, 2, 0, 2, 0, 1, 2, 1};

TEST(Metrics, MatchesScikitLearn) {
  const ClassificationReport r = classification_report(kTrue, kPred, {"a", "b", "c", "d"});
  expect_near_all(r.precision, {0.75, 0.5, 0.6, 0.0}, "precision");
  expect_near_all(r.recall, {0.75, 0.6666666666666666, 0.75, 0.0}, "recall");
  expect_near_all(r.f1, {0.75, 0.5714285714285715, 0.6666666666666665, 0.0}, "f1");
  EXPECT_EQ(r.support, (std::vector<int64_t>{4, 3, 4, 2}));
  EXPECT_NEAR(r.accuracy, 0.6153846153846154, 1e-15);
  EXPECT_EQ(r.confusion, (std::vector<std::vector<int64_t>>{
                             {3, 1, 0, 0}, {0, 2, 1, 0}, {1, 0, 3, 0}, {0, 1, 1, 0}}));
}

TEST(Metrics, TextIsScikitLearnsTableThenTheConfusionMatrix) {
  const ClassificationReport r = classification_report(kTrue, kPred, {"a", "b", "c", "d"});
  // The table is scikit-learn's classification_report(..., digits=3) output, character for
  // character.
  EXPECT_EQ(r.str(),
            "              precision    recall  f1-score   support\n"
            "\n"
            "           a      0.750     0.750     0.750         4\n"
            "           b      0.500     0.667     0.571         3\n"
            "           c      0.600     0.750     0.667         4\n"
            "           d      0.000     0.000     0.000         2\n"
            "\n"
            "    accuracy                          0.615        13\n"
            "   macro avg      0.463     0.542     0.497        13\n"
            "weighted avg      0.531     0.615     0.568        13\n"
            "\n"
            "true \\ predicted  a  b  c  d\n"
            "a                 3  1  0  0\n"
            "b                 0  2  1  0\n"
            "c                 1  0  3  0\n"
            "d                 0  1  1  0\n");
}

TEST(Metrics, WideNamesWidenTheColumns) {
  const std::string text =
      classification_report({0, 1, 1}, {0, 1, 0}, {"setosa", "a very long class name"}).str();
  EXPECT_NE(text.find("                setosa      0.500     1.000     0.667"), std::string::npos)
      << text;
  EXPECT_NE(text.find("true \\ predicted        setosa  a very long class name\n"
                      "setosa                       1                       0\n"),
            std::string::npos)
      << text;
}

TEST(Metrics, ErrorsNameTheArgument) {
  EXPECT_EQ(error_of([] {
              classification_report({0, 1}, {0}, {"a", "b"});
            }),
            "Expected y_true and y_pred of the same size, but got 2 and 1");
  EXPECT_EQ(error_of([] {
              classification_report({0, 1}, {0, 2}, {"a", "b"});
            }),
            "Expected y_pred values in [0, 2) (indices into class_names), but y_pred[1] is 2");
  EXPECT_EQ(error_of([] { classification_report({-1}, {0}, {"a"}); }),
            "Expected y_true values in [0, 1) (indices into class_names), but y_true[0] is -1");
  EXPECT_EQ(error_of([] { classification_report({}, {}, {"a"}); }),
            "Expected at least one prediction to report on, but got none");
  EXPECT_EQ(error_of([] { classification_report({0}, {0}, {}); }),
            "Expected at least one class name, but got none");
}

// Whether xml has one of XML's five entities at i.
bool entity_at(const std::string& xml, size_t i) {
  for (const char* entity : {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"}) {
    if (xml.compare(i, std::string(entity).size(), entity) == 0) return true;
  }
  return false;
}

// Well-formed XML, checked by hand: every tag closed in order, and no raw '<' or '&' in text
// or attribute values. Returns "" or what is wrong.
std::string xml_problem(const std::string& xml) {
  std::vector<std::string> open;
  size_t i = xml.starts_with("<?xml") ? xml.find("?>") + 2 : 0;
  while (i < xml.size()) {
    if (xml[i] == '&' && !entity_at(xml, i)) return "raw & at " + std::to_string(i);
    if (xml[i] != '<') {
      ++i;
      continue;
    }
    const size_t end = xml.find('>', i);
    if (end == std::string::npos) return "unclosed tag at " + std::to_string(i);
    const std::string tag = xml.substr(i + 1, end - i - 1);
    for (size_t k = 0; k < tag.size(); ++k) {
      if (tag[k] == '<' || (tag[k] == '&' && !entity_at(tag, k))) {
        return "raw < or & in <" + tag + ">";
      }
    }
    const bool closing = tag[0] == '/';
    const std::string name = tag.substr(closing, tag.find_first_of(" /", 1) - closing);
    if (closing) {
      if (open.empty() || open.back() != name) return "unexpected </" + name + ">";
      open.pop_back();
    } else if (tag.back() != '/') {
      open.push_back(name);
    }
    i = end + 1;
  }
  return open.empty() ? "" : "unclosed <" + open.back() + ">";
}

TEST(Chart, WellFormednessCheckCatchesMistakes) {
  EXPECT_EQ(xml_problem("<a><b/>x &amp; y<c k=\"&lt;\"></c></a>"), "");
  EXPECT_EQ(xml_problem("<a><b></a>"), "unexpected </a>");
  EXPECT_EQ(xml_problem("<a>"), "unclosed <a>");
  EXPECT_EQ(xml_problem("<a>x & y</a>"), "raw & at 5");
  EXPECT_EQ(xml_problem("<a>x < y</a>"), "raw < or & in < y</a>");
  EXPECT_EQ(xml_problem("<a k=\"&\"/>"), "raw < or & in <a k=\"&\"/>");
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Also runs xmllint on it when the machine has it (it is optional).
void expect_well_formed(const std::string& svg) {
  ASSERT_EQ(xml_problem(svg), "") << svg;
  if (std::system("command -v xmllint > /dev/null 2>&1") != 0) return;
  std::string path = ::testing::TempDir() + "torchlet-chart-XXXXXX";
  const int fd = mkstemp(path.data());
  ASSERT_GE(fd, 0);
  close(fd);
  io::write_file_atomic(path, svg);
  EXPECT_EQ(std::system(("xmllint --noout " + path).c_str()), 0) << svg;
  unlink(path.c_str());
}

TEST(Chart, LossCurveHasTitleLabelsAndOneCirclePerPoint) {
  LineChart chart{"training loss", "epoch", "loss (cross-entropy)", {}, {}};
  chart.series.push_back({"train", {1, 2, 3, 4, 5}, {1.1, 0.7, 0.5, 0.42, 0.4}});
  const std::string svg = render_svg(chart);
  expect_well_formed(svg);
  EXPECT_TRUE(
      svg.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg "
                      "xmlns=\"http://www.w3.org/2000/svg\" width=\"720\" height=\"420\""));
  EXPECT_EQ(count(svg, "<circle"), 5u);
  EXPECT_EQ(count(svg, "<polyline"), 1u);
  for (const char* text : {">training loss</text>", ">epoch</text>", ">loss (cross-entropy)</text>",
                           "<title>train: (3, 0.5)</title>", ">0.6<", ">1.2<", ">5<"}) {
    EXPECT_NE(svg.find(text), std::string::npos) << text;
  }
  EXPECT_EQ(svg.find(">train</text>"), std::string::npos);  // one series: no legend
}

TEST(Chart, EscapesTextAndShowsALegendForSeveralSeries) {
  LineChart chart{"a < b & \"c\"", "x <ms>", "y & z", {}, {{2.5, "GPU wins > here"}}};
  chart.series.push_back({"cpu <1>", {1, 2, 3}, {3, 2, 1}});
  chart.series.push_back({"cuda & co", {1, 2, 3}, {1, 2, 3}});
  const std::string svg = render_svg(chart);
  expect_well_formed(svg);
  for (const char* text : {">a &lt; b &amp; &quot;c&quot;</text>", ">x &lt;ms&gt;</text>",
                           ">y &amp; z</text>", ">cpu &lt;1&gt;</text>", ">cuda &amp; co</text>",
                           ">GPU wins &gt; here</text>", "stroke-dasharray"}) {
    EXPECT_NE(svg.find(text), std::string::npos) << text;
  }
  EXPECT_EQ(count(svg, "<circle"), 6u);
  EXPECT_EQ(count(svg, "<polyline"), 2u);
  EXPECT_NE(svg.find("#1f77b4"), std::string::npos);
  EXPECT_NE(svg.find("#ff7f0e"), std::string::npos);
}

TEST(Chart, AwkwardDataDrawsWithoutNaNs) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  struct Case {
    const char* what;
    std::vector<Series> series;
    size_t circles;
  };
  const std::vector<Case> cases = {
      {"no series", {}, 0},
      {"empty series", {{"s", {}, {}}}, 0},
      {"one point", {{"s", {3}, {7}}}, 1},
      {"all y equal", {{"s", {1, 2, 3}, {5, 5, 5}}}, 3},
      {"all y zero", {{"s", {1, 2}, {0, 0}}}, 2},
      {"non-finite skipped", {{"s", {1, 2, nan, 4, 5}, {1, inf, 3, 4, -inf}}}, 2},
      {"only non-finite", {{"s", {nan}, {nan}}}, 0},
      {"tiny spread", {{"s", {1, 2}, {1e9, 1e9 + 1e-6}}}, 2},
      {"huge values", {{"s", {0, 1}, {-1e300, 1e300}}}, 2},
      {"beyond 1e300 skipped", {{"s", {0, 1, 2}, {1, 1e308, -1.7e308}}}, 1},
  };
  for (const Case& c : cases) {
    LineChart chart{c.what, "x", "y", c.series, {}};
    const std::string svg = render_svg(chart);
    expect_well_formed(svg);
    EXPECT_EQ(count(svg, "<circle"), c.circles) << c.what;
    EXPECT_EQ(svg.find("nan"), std::string::npos) << c.what;
    EXPECT_EQ(svg.find("inf"), std::string::npos) << c.what;
    EXPECT_EQ(svg.find("no data") != std::string::npos, c.circles == 0) << c.what;
  }
}

TEST(Chart, TickLabelsOfLargeValuesStayDistinct) {
  LineChart chart{"t", "x", "y", {{"s", {0, 1}, {12341000, 12349000}}}, {}};
  const std::string svg = render_svg(chart);
  for (const char* tick : {">1.234e+07<", ">1.2342e+07<", ">1.2344e+07<", ">1.235e+07<"}) {
    EXPECT_NE(svg.find(tick), std::string::npos) << tick;
  }
}

TEST(Chart, LogAxesHaveDecadeTicksAndSkipNonPositiveValues) {
  LineChart chart{"time per epoch", "batch size", "time (ms)", {}, {}};
  chart.series.push_back({"cpu", {1, 10, 100, 1000, 0, -5}, {0.5, 2, 30, 800, 1, 1}});
  chart.log_x = chart.log_y = true;
  const std::string svg = render_svg(chart);
  expect_well_formed(svg);
  EXPECT_EQ(count(svg, "<circle"), 4u);
  for (const char* tick : {">1<", ">10<", ">100<", ">1000<", ">0.1<"}) {
    EXPECT_NE(svg.find(tick), std::string::npos) << tick;
  }
}

TEST(Chart, ErrorsNameTheSeries) {
  LineChart chart{"t", "x", "y", {{"loss", {1, 2}, {1}}}, {}};
  EXPECT_EQ(error_of([&] { render_svg(chart); }),
            "Expected series 'loss' to have as many x as y values, but got 2 x and 1 y");
  chart.series.clear();
  chart.width = 100;
  EXPECT_EQ(error_of([&] { render_svg(chart); }),
            "Expected a chart of at least 200x150 pixels, but got 100x420");
}

// The number of UTF-8 characters (code points) in text.
size_t characters(const std::string& text) {
  size_t n = 0;
  for (char c : text) n += (c & 0xC0) != 0x80;
  return n;
}

TEST(Sparkline, BlocksTraceTheValues) {
  EXPECT_EQ(sparkline({}), "");
  EXPECT_EQ(sparkline({1, 2, 3, 4, 5, 6, 7, 8}), "▁▂▃▄▅▆▇█");
  EXPECT_EQ(sparkline({8, 1}), "█▁");
  EXPECT_EQ(sparkline({3, 3, 3}), "▄▄▄");
  EXPECT_EQ(sparkline({42}), "▄");
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(sparkline({0, nan, 1}), "▁ █");
  EXPECT_EQ(sparkline({-1e308, 1e308}), "▁█");
}

TEST(Sparkline, ResamplesToTheWidthByAveraging) {
  std::vector<double> ramp(1000);
  for (size_t i = 0; i < ramp.size(); ++i) ramp[i] = static_cast<double>(i);
  const std::string line = sparkline(ramp);
  EXPECT_EQ(characters(line), 60u);
  EXPECT_TRUE(line.starts_with("▁")) << line;
  EXPECT_TRUE(line.ends_with("█")) << line;
  EXPECT_EQ(characters(sparkline(ramp, 7)), 7u);
  EXPECT_EQ(characters(sparkline({1, 2, 3}, 60)), 3u);
  // Buckets average: {0, 0, 8, 8} to width 2 is low then high, {0, 8, 0, 8} is flat.
  EXPECT_EQ(sparkline({0, 0, 8, 8}, 2), "▁█");
  EXPECT_EQ(sparkline({0, 8, 0, 8}, 2), "▄▄");
  for (const char* block : {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"}) {
    EXPECT_NE(line.find(block), std::string::npos) << block;
  }
  EXPECT_EQ(error_of([] { sparkline({1}, 0); }),
            "Expected a sparkline width of at least 1, but got 0");
}

}  // namespace
}  // namespace torchlet::report
