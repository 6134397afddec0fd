// `torchlet train` on the GPU: the course's run on cuda:0 (fused, graph, eager) against the
// CPU's, and the --graph option's refusals. Suites starting with "Cuda" need a GPU.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "testing.h"

namespace torchlet {
namespace {

using nlohmann::json;

json train_json(const std::string& args) {
  testing::TempFolder dir;
  const testing::CliRun run = testing::run_cli("train --json --no-plot " + args, dir.path());
  EXPECT_EQ(run.status, 0) << args << "\n" << run.err;
  return json::parse(run.out);
}

TEST(CliGraph, RefusesWhereACudaGraphCannotRun) {
  testing::TempFolder dir;
  testing::expect_refused("train --graph --no-graph",
                          "--graph: Expected --graph or --no-graph, "
                          "but got both",
                          dir.path(), "loss.svg");
  testing::expect_refused("train --graph --device cpu",
                          "--graph: Expected a CUDA device (CUDA graphs replay GPU work), but got "
                          "--device cpu (cpu)",
                          dir.path(), "loss.svg");
  EXPECT_EQ(train_json("--epochs 10 --no-graph")["graph"], false);
}

TEST(CudaCliTrain, TheCourseRunOnTheGpuMatchesTheCpu) {
  if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  const json cpu = train_json("--device cpu --epochs 2000");
  for (const char* mode : {"", "--graph --momentum 0.9", "--eager", "--eager --graph"}) {
    SCOPED_TRACE(mode);
    const json gpu = train_json(std::string("--device cuda --epochs 2000 ") + mode);
    EXPECT_EQ(gpu["device"], "cuda:0");
    EXPECT_EQ(gpu["graph"], std::string(mode).find("--graph") != std::string::npos);
    if (std::string(mode).find("momentum") == std::string::npos) {
      // nvcc contracts a * b + c into one rounding (fma), the CPU build does not: after 2,000
      // epochs the runs differ by rounding, so one test row may land on the other side.
      EXPECT_NEAR(gpu["final_loss"].get<double>(), cpu["final_loss"].get<double>(), 1e-4);
      const double one_row = 1.0 / cpu["test_rows"].get<double>();
      EXPECT_NEAR(gpu["test_acc"].get<double>(), cpu["test_acc"].get<double>(), one_row + 1e-12);
    }
  }
}

TEST(CudaCliTrain, GraphRefusesAdamAndMiniBatches) {
  if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  testing::TempFolder dir;
  testing::expect_refused("train --device cuda --graph --optimizer adam",
                          "--graph: Expected a run a CUDA graph can replay, but Adam keeps its "
                          "step count on the host, so a replayed step would repeat it (use "
                          "--optimizer sgd)",
                          dir.path(), "loss.svg");
  testing::expect_refused("train --device cuda --graph --batch-size 16",
                          "--graph: Expected a run a CUDA graph can replay, but CUDA graphs are "
                          "used for full-batch training only (no --batch-size)",
                          dir.path(), "loss.svg");
}

}  // namespace
}  // namespace torchlet
