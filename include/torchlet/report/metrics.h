// Classification metrics for a test set: accuracy, per-class precision, recall and F1
// (scikit-learn's definitions; 0 where undefined), and the confusion matrix.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace torchlet::report {

struct ClassificationReport {
  std::vector<std::string> class_names;
  std::vector<std::vector<int64_t>> confusion;  // [true class][predicted class]
  std::vector<double> precision, recall, f1;
  std::vector<int64_t> support;  // true rows per class
  double accuracy = 0.0;

  // A text table like scikit-learn's classification_report, then the confusion matrix with
  // class names as row and column headers.
  std::string str() const;
};

// y_true and y_pred hold class indices in [0, class_names.size()); throws torchlet::Error
// when the sizes differ or an index is out of range.
ClassificationReport classification_report(const std::vector<int64_t>& y_true,
                                           const std::vector<int64_t>& y_pred,
                                           const std::vector<std::string>& class_names);

}  // namespace torchlet::report
