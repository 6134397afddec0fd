// classification_report and its text form. The arithmetic is scikit-learn's: precision
// tp / (tp + fp) and recall tp / (tp + fn), each 0 when its denominator is, and F1 their
// harmonic mean (0 when both are 0). The table follows sklearn's layout, with 3 decimals.
#include "torchlet/report/metrics.h"

#include <algorithm>
#include <cstdint>
#include <iomanip>
#include <sstream>
#include <string>
#include <vector>

#include "torchlet/error.h"

namespace torchlet::report {
namespace {

void check_indices(const std::vector<int64_t>& values, const char* name, size_t classes) {
  for (size_t i = 0; i < values.size(); ++i) {
    TORCHLET_CHECK(values[i] >= 0 && static_cast<size_t>(values[i]) < classes, "Expected ", name,
                   " values in [0, ", classes, ") (indices into class_names), but ", name, "[", i,
                   "] is ", values[i]);
  }
}

double ratio(int64_t numerator, int64_t denominator) {
  return denominator == 0 ? 0.0 : static_cast<double>(numerator) / static_cast<double>(denominator);
}

// Characters a terminal shows for UTF-8 text (code points; no East Asian wide forms).
size_t display_width(const std::string& text) {
  return static_cast<size_t>(
      std::count_if(text.begin(), text.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

// `text` padded with spaces to `width` columns, on the left (right-aligned) or the right.
std::string pad(const std::string& text, size_t width, bool right_align = true) {
  const std::string spaces(width - std::min(width, display_width(text)), ' ');
  return right_align ? spaces + text : text + spaces;
}

std::string fixed3(double value) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(3) << value;
  return out.str();
}

}  // namespace

ClassificationReport classification_report(const std::vector<int64_t>& y_true,
                                           const std::vector<int64_t>& y_pred,
                                           const std::vector<std::string>& class_names) {
  TORCHLET_CHECK(!class_names.empty(), "Expected at least one class name, but got none");
  TORCHLET_CHECK(y_true.size() == y_pred.size(),
                 "Expected y_true and y_pred of the same size, but got ", y_true.size(), " and ",
                 y_pred.size());
  TORCHLET_CHECK(!y_true.empty(), "Expected at least one prediction to report on, but got none");
  const size_t k = class_names.size();
  check_indices(y_true, "y_true", k);
  check_indices(y_pred, "y_pred", k);

  ClassificationReport report;
  report.class_names = class_names;
  report.confusion.assign(k, std::vector<int64_t>(k, 0));
  int64_t correct = 0;
  for (size_t i = 0; i < y_true.size(); ++i) {
    ++report.confusion[static_cast<size_t>(y_true[i])][static_cast<size_t>(y_pred[i])];
    correct += y_true[i] == y_pred[i];
  }
  for (size_t c = 0; c < k; ++c) {
    const int64_t tp = report.confusion[c][c];
    int64_t predicted = 0, actual = 0;
    for (size_t other = 0; other < k; ++other) {
      predicted += report.confusion[other][c];
      actual += report.confusion[c][other];
    }
    const double precision = ratio(tp, predicted), recall = ratio(tp, actual);
    report.precision.push_back(precision);
    report.recall.push_back(recall);
    report.f1.push_back(
        precision + recall == 0.0 ? 0.0 : 2.0 * precision * recall / (precision + recall));
    report.support.push_back(actual);
  }
  report.accuracy = ratio(correct, static_cast<int64_t>(y_true.size()));
  return report;
}

std::string ClassificationReport::str() const {
  size_t name_width = std::string("weighted avg").size();
  for (const std::string& name : class_names)
    name_width = std::max(name_width, display_width(name));
  const auto row = [&](const std::string& name, const std::string& precision_text,
                       const std::string& recall_text, const std::string& f1_text,
                       const std::string& support_text) {
    return pad(name, name_width) + "  " + pad(precision_text, 9) + " " + pad(recall_text, 9) + " " +
           pad(f1_text, 9) + " " + pad(support_text, 9) + "\n";
  };
  std::string out = row("", "precision", "recall", "f1-score", "support") + "\n";

  int64_t total = 0;
  double macro[3] = {0, 0, 0}, weighted[3] = {0, 0, 0};
  for (size_t c = 0; c < class_names.size(); ++c) {
    out += row(class_names[c], fixed3(precision[c]), fixed3(recall[c]), fixed3(f1[c]),
               std::to_string(support[c]));
    const double values[3] = {precision[c], recall[c], f1[c]};
    for (int m = 0; m < 3; ++m) {
      macro[m] += values[m] / static_cast<double>(class_names.size());
      weighted[m] += values[m] * static_cast<double>(support[c]);
    }
    total += support[c];
  }
  for (double& value : weighted) value /= static_cast<double>(std::max<int64_t>(total, 1));
  const std::string total_text = std::to_string(total);
  out += '\n';
  out += row("accuracy", "", "", fixed3(accuracy), total_text);
  out += row("macro avg", fixed3(macro[0]), fixed3(macro[1]), fixed3(macro[2]), total_text);
  out += row("weighted avg", fixed3(weighted[0]), fixed3(weighted[1]), fixed3(weighted[2]),
             total_text);

  // The confusion matrix: true classes down, predicted across.
  const std::string corner = "true \\ predicted";
  size_t label_width = display_width(corner);
  for (const std::string& name : class_names)
    label_width = std::max(label_width, display_width(name));
  std::vector<size_t> widths;
  for (size_t c = 0; c < class_names.size(); ++c) {
    size_t width = display_width(class_names[c]);
    for (const auto& counts : confusion) width = std::max(width, std::to_string(counts[c]).size());
    widths.push_back(width);
  }
  out += '\n';
  out += pad(corner, label_width, false);
  for (size_t c = 0; c < class_names.size(); ++c) out += "  " + pad(class_names[c], widths[c]);
  out += '\n';
  for (size_t r = 0; r < class_names.size(); ++r) {
    out += pad(class_names[r], label_width, false);
    for (size_t c = 0; c < class_names.size(); ++c) {
      out += "  " + pad(std::to_string(confusion[r][c]), widths[c]);
    }
    out += '\n';
  }
  return out;
}

}  // namespace torchlet::report
