// make_optimizer, print_test_result and add_report_json for both training paths.
#include "train_report.h"

#include <fmt/core.h>

namespace torchlet::cli {

std::unique_ptr<optim::Optimizer> make_optimizer(const std::string& name,
                                                 const std::vector<Tensor>& params, double lr,
                                                 double momentum) {
  if (name == "sgd") return std::make_unique<optim::SGD>(params, lr, momentum);
  return std::make_unique<optim::Adam>(params, lr);
}

void print_test_result(std::FILE* out, const Style& style, const report::ClassificationReport& rep,
                       const std::vector<int64_t>& truth, const std::vector<int64_t>& predicted) {
  int64_t correct = 0;
  for (std::size_t i = 0; i < truth.size(); ++i) correct += truth[i] == predicted[i];
  fmt::print(
      out, "{}\n\n{}",
      style.bold(fmt::format("test accuracy: {:.4f} ({}/{})", rep.accuracy, correct, truth.size())),
      rep.str());
}

void add_report_json(nlohmann::json& j, const report::ClassificationReport& rep) {
  j["precision"] = rep.precision;
  j["recall"] = rep.recall;
  j["f1"] = rep.f1;
  j["support"] = rep.support;
  j["confusion"] = rep.confusion;
}

}  // namespace torchlet::cli
