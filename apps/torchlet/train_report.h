// What the tabular and image paths of `torchlet train` share: the optimizer chosen by
// --optimizer, the device chosen by --device, the test-accuracy line with the classification
// report, the loss plot, and their JSON fields.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "terminal.h"
#include "torchlet/report/metrics.h"
#include "torchlet/torchlet.h"

namespace torchlet::cli {

// SGD (with momentum) or Adam over `params`; `name` is "sgd" or "adam" (validated before).
std::unique_ptr<optim::Optimizer> make_optimizer(const std::string& name,
                                                 const std::vector<Tensor>& params, double lr,
                                                 double momentum);

// "test accuracy: 0.9667 (29/30)" in bold, a blank line, then the per-class report.
void print_test_result(std::FILE* out, const Style& style, const report::ClassificationReport& rep,
                       const std::vector<int64_t>& truth, const std::vector<int64_t>& predicted);

// optimizer, lr, momentum, batch_size and seed: the settings both paths' arguments hold.
template <typename TrainingArgs>
void add_settings_json(nlohmann::json& j, const TrainingArgs& a) {
  j["optimizer"] = a.optimizer;
  j["lr"] = a.lr;
  j["momentum"] = a.momentum;
  j["batch_size"] = a.batch_size;
  j["seed"] = a.seed;
}

// "auto" picks CUDA when it is available; errors name --device and what is possible here.
Device resolve_device(const std::string& spec);

// The loss curve as an SVG at `path` (io::write_file_atomic): x in epochs, one series.
void write_loss_plot(const std::string& path, const std::vector<double>& x,
                     const std::vector<double>& y, const std::string& title,
                     const std::string& series_name);

// precision, recall, f1, support (per class) and confusion ([true][predicted]).
void add_report_json(nlohmann::json& j, const report::ClassificationReport& rep);

}  // namespace torchlet::cli
