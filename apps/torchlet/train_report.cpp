// make_optimizer, print_test_result, add_report_json, resolve_device and write_loss_plot for
// both training paths.
#include "train_report.h"

#include <fmt/core.h>

#include "torchlet/io/file.h"
#include "torchlet/report/chart.h"

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

Device resolve_device(const std::string& spec) {
  if (spec == "auto") return cuda::is_available() ? Device("cuda:0") : kCPU;
  TORCHLET_CHECK(spec == "cpu" || spec.rfind("cuda", 0) == 0,
                 "--device: Expected auto, cpu, cuda or cuda:N, but got '", spec, "'");
  const Device device(spec);
  if (device.is_cuda()) {
    TORCHLET_CHECK(cuda::is_available(), "--device ", spec,
                   ": Expected a CUDA device, but none is available (", cuda::device_count(),
                   " GPUs; this torchlet was built without CUDA or finds no GPU). Use --device "
                   "cpu or auto");
    TORCHLET_CHECK(device.index() < cuda::device_count(), "--device ", spec,
                   ": Expected a GPU index below ", cuda::device_count(),
                   " (the number of GPUs), but got ", device.index());
  }
  return device;
}

void write_loss_plot(const std::string& path, const std::vector<double>& x,
                     const std::vector<double>& y, const std::string& title,
                     const std::string& series_name) {
  report::LineChart chart;
  chart.title = title;
  chart.x_label = "epoch";
  chart.y_label = "loss (cross-entropy)";
  report::Series series;
  series.name = series_name;
  series.x = x;
  series.y = y;
  chart.series.push_back(std::move(series));
  io::write_file_atomic(path, report::render_svg(chart));
}

}  // namespace torchlet::cli
