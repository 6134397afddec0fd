// End-to-end tests of `torchlet bench images` at tiny sizes: the JSON's cells and figures, the
// files --out writes, and bad arguments refused with one line and exit status 2.
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "torchlet/cuda.h"

namespace torchlet {
namespace {

using testing::read_text;
using testing::run_cli;
using testing::scratch_dir;

TEST(CliBenchImages, JsonHasACellPerModelAndBatch) {
  const auto dir = scratch_dir();
  const testing::CliRun run = run_cli(
      "bench images --device cpu --models mlp,cnn --batches 8,4 --steps 2 --warmup 1 --json "
      "--out out",
      dir);
  ASSERT_EQ(run.status, 0) << run.err;
  const nlohmann::json j = nlohmann::json::parse(run.out);  // one JSON object on stdout
  EXPECT_EQ(j["bench"], "images");
  EXPECT_EQ(j["machine"]["devices"][0]["device"], "cpu");
  EXPECT_EQ(j["batches"], nlohmann::json({4, 8}));  // sorted
  EXPECT_EQ(j["optimizer"], "Adam");
  EXPECT_DOUBLE_EQ(j["lr"].get<double>(), 1e-3);
  EXPECT_EQ(j["warmup_steps"], 1);
  EXPECT_GE(j["threads"].get<int>(), 1);
  EXPECT_EQ(j["models"]["mlp"]["description"], "MLP 784-256-128-10");
  EXPECT_EQ(j["models"]["mlp"]["parameters"], 784 * 256 + 256 + 256 * 128 + 128 + 128 * 10 + 10);
  EXPECT_EQ(j["models"]["cnn"]["parameters"],
            (9 * 32 + 32) + (32 * 9 * 64 + 64) + (3136 * 128 + 128) + (128 * 10 + 10));
  const nlohmann::json& cells = j["results"];
  ASSERT_EQ(cells.size(), 4u);
  const char* models[] = {"mlp", "mlp", "cnn", "cnn"};
  const int batches[] = {4, 8, 4, 8};
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const nlohmann::json& c = cells[i];
    EXPECT_EQ(c["device"], "cpu");
    EXPECT_EQ(c["model"], models[i]);
    EXPECT_EQ(c["batch"], batches[i]);
    EXPECT_EQ(c["steps"], 2);  // --steps 2 is below the 3 steps the time budget waits for
    const double seconds = c["seconds"], rate = c["images_per_s"];
    EXPECT_GT(seconds, 0.0);
    EXPECT_GT(rate, 0.0);
    EXPECT_NEAR(rate, 2.0 * batches[i] / seconds, 1e-6 * rate);
    EXPECT_NEAR(c["ms_per_step"].get<double>(), seconds / 2 * 1e3, 1e-9);
    EXPECT_TRUE(c["speedup_vs_cpu"].is_null());
    EXPECT_TRUE(std::isfinite(c["final_loss"].get<double>()));
  }
  EXPECT_NE(run.err.find("images/s"), std::string::npos) << run.err;  // the table, on stderr
  const auto out = dir / "out";
  EXPECT_EQ(nlohmann::json::parse(read_text(out / "images.json"))["results"].size(), 4u);
  const std::string csv = read_text(out / "images.csv");
  EXPECT_TRUE(csv.starts_with("device,model,batch,steps,seconds,images_per_s,")) << csv;
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 5);
  EXPECT_TRUE(read_text(out / "images_throughput.svg").starts_with("<?xml"));
  EXPECT_NE(read_text(out / "index.html").find("images.csv"), std::string::npos);
}

TEST(CliBenchImages, BadArgumentsGiveOneLineAndStatus2) {
  const auto dir = scratch_dir();
  struct Case {
    std::string args, message;
  };
  std::vector<Case> cases = {
      {"bench images --models mlp,x", "--models: Expected mlp or cnn, but got 'x'"},
      {"bench images --batches 32,0", "--batches: Expected sizes >= 1"},
      {"bench images --batches 100000", "--batches: Expected sizes >= 1 and <= 8192"},
      {"bench images --steps 0", "--steps: Expected a number >= 1, but got 0"},
      {"bench images --warmup -1", "--warmup: Expected a number >= 0, but got -1"},
      {"bench images --cell-seconds 0", "--cell-seconds: Expected a finite number > 0"},
      {"bench images --lr 0", "--lr: Expected a number in (0, 1e6)"},
      {"bench images --device tpu", "--device: Expected all, cpu, cuda or cuda:N"},
  };
  if (!cuda::is_available()) cases.push_back({"bench images --device cuda", "none is available"});
  for (const Case& c : cases) {
    const testing::CliRun run = run_cli(c.args + " --json", dir);
    EXPECT_EQ(run.status, 2) << c.args << "\n" << run.err;
    EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << c.args << "\n" << run.err;
    EXPECT_TRUE(run.err.starts_with("torchlet: error: ")) << c.args << "\n" << run.err;
    EXPECT_NE(run.err.find(c.message), std::string::npos) << c.args << "\n" << run.err;
    EXPECT_TRUE(run.out.empty()) << c.args << "\n" << run.out;
  }
}

}  // namespace
}  // namespace torchlet
