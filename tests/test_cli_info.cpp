// `torchlet info` end to end: the built binary's report on this machine, the course's readings
// of every name in the issue through --explain, --compare, --json, and bad input (exit 2).
#include <gtest/gtest.h>

#ifdef TORCHLET_CLI_PATH
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "cli_runner.h"

namespace torchlet {
namespace {

using testing::run_cli;
using testing::scratch_dir;

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(CliInfo, ReportsThisMachineAndExitsZero) {
  const auto run = run_cli("info", scratch_dir());
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.err, "");
  for (const char* part :
       {"CPU\n", "GPU\n", "Model name", "Physical cores", "Logical threads", "Instruction sets",
        "Built with CUDA", "CUDA available", "cuDNN", "Device count"})
    EXPECT_TRUE(has(run.out, part)) << part << "\n" << run.out;
  EXPECT_TRUE(
      has(run.out, "Logical threads       " + std::to_string(sysconf(_SC_NPROCESSORS_ONLN))));
  if (has(run.out, "CUDA available        no")) {
    EXPECT_TRUE(has(run.out, "    why not           ")) << run.out;
  }
  if (access("/dev/nvidiactl", F_OK) != 0 && !has(run.out, "Device 0")) {
    EXPECT_TRUE(has(run.out, "no NVIDIA driver found (libcuda.so.1 could not be loaded"))
        << run.out;
  }
}

// Every example of the issue, with the words of the course's reading that must appear.
TEST(CliInfo, ExplainsTheIssuesExamples) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"NVIDIA GeForce RTX 3080 Ti",
       {"GeForce RTX", "30 = the RTX 30 series", "Ampere", "80 (xx80: high end",
        "between the RTX 3080 and the RTX 3090", "12 GB GDDR6X"}},
      {"RTX 4070 Ti SUPER", {"Ada Lovelace", "Suffix Ti SUPER", "16 GB"}},
      {"GTX 1660 SUPER", {"GTX 16 series", "without tensor cores", "Suffix SUPER"}},
      {"RTX 3060 Laptop GPU", {"Suffix Laptop GPU", "laptop GPU", "6 GB"}},
      {"Tesla T4", {"T = Turing", "16 GB GDDR6"}},
      {"NVIDIA A100-SXM4-80GB", {"A = Ampere", "Suffix SXM4", "Suffix 80GB", "80 GB HBM2e"}},
      {"NVIDIA H200", {"H = Hopper", "141 GB HBM3e"}},
      {"11th Gen Intel(R) Core(TM) i5-11300H @ 3.10GHz",
       {"11th generation Core", "i5: mainstream", "300: the SKU", "Suffix H",
        "high-performance laptop", "3.1 GHz"}},
      {"12th Gen Intel(R) Core(TM) i9-12900KF",
       {"Suffix K", "unlocked", "Suffix F", "no integrated graphics"}},
      {"AMD Ryzen 7 7800X3D", {"Ryzen 7000 series", "Zen 4", "Suffix X3D", "3D V-Cache"}},
      {"AMD EPYC 7763", {"EPYC 7000 series", "Milan", "Zen 3", "76: the performance level"}},
      {"Apple M2 Pro", {"Apple M series", "Pro:", "M2 (2022)"}},
  };
  for (const auto& [name, parts] : cases) {
    SCOPED_TRACE(name);
    const auto run = run_cli("info --explain '" + name + "'", scratch_dir());
    ASSERT_EQ(run.status, 0) << run.err;
    for (const auto& part : parts) {
      EXPECT_TRUE(has(run.out, part)) << part << "\n" << run.out;
    }
    EXPECT_TRUE(has(run.out, "Not recognised        (nothing)")) << run.out;
    EXPECT_FALSE(has(run.out, "Model name")) << "--explain prints only the names";
  }
}

TEST(CliInfo, ExplainJsonHasTheParsedFields) {
  const auto run =
      run_cli("info --json --explain 'RTX 3080 Ti' --explain 'i9-12900KF'", scratch_dir());
  ASSERT_EQ(run.status, 0) << run.err;
  const auto j = nlohmann::json::parse(run.out);
  const auto& gpu = j.at("explain").at(0);
  EXPECT_EQ(gpu.at("kind"), "gpu");
  EXPECT_EQ(gpu.at("name_info").at("vendor"), "NVIDIA");
  EXPECT_EQ(gpu.at("name_info").at("generation"), 30);
  EXPECT_EQ(gpu.at("name_info").at("architecture"), "Ampere");
  EXPECT_EQ(gpu.at("name_info").at("tier"), 80);
  EXPECT_EQ(gpu.at("name_info").at("suffixes").at(0).at("text"), "Ti");
  EXPECT_EQ(gpu.at("known_specs").at("vram_gb"), 12);
  EXPECT_EQ(gpu.at("known_specs").at("compute_capability"), "8.6");
  EXPECT_NEAR(gpu.at("estimates").at("fp32_tflops").get<double>(), 34.1, 0.1);
  EXPECT_EQ(gpu.at("vram_verdict").at("adam_fp32_training_params"), (12ll << 30) / 16);
  const auto& cpu = j.at("explain").at(1);
  EXPECT_EQ(cpu.at("kind"), "cpu");
  EXPECT_EQ(cpu.at("name_info").at("generation"), 12);
  EXPECT_EQ(cpu.at("name_info").at("suffixes").size(), 2u);
}

TEST(CliInfo, ComparesCardsSideBySide) {
  const auto run =
      run_cli("info --compare 'RTX 3080 Ti' 'RTX 4070' 'NVIDIA H100 PCIe'", scratch_dir());
  ASSERT_EQ(run.status, 0) << run.err;
  for (const char* part : {"GeForce RTX 3080 Ti", "GeForce RTX 4070", "H100 PCIe", "Ampere (8.6)",
                           "Ada Lovelace (8.9)", "912 GB/s", "504 GB/s", "34.1 TFLOP/s",
                           "29.1 TFLOP/s", "Estimates, not measurements", "parameters only"})
    EXPECT_TRUE(has(run.out, part)) << part << "\n" << run.out;
  const auto json = run_cli("info --json --compare 'RTX 3080 Ti' 'RTX 4070'", scratch_dir());
  ASSERT_EQ(json.status, 0) << json.err;
  EXPECT_EQ(nlohmann::json::parse(json.out).at("compare").size(), 2u);
}

TEST(CliInfo, UnknownNamesAreExplainedNotFatal) {
  const auto run =
      run_cli("info --explain 'Frobnicator 9000' --explain 'NVIDIA Foo 9000'", scratch_dir());
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_TRUE(has(run.out, "neither a CPU nor a GPU name torchlet recognises")) << run.out;
  EXPECT_TRUE(has(run.out, "Not recognised        Foo 9000")) << run.out;
}

TEST(CliInfo, BadArgumentsExitTwoWithOneLine) {
  const auto empty = run_cli("info --explain ''", scratch_dir());
  EXPECT_EQ(empty.status, 2);
  EXPECT_EQ(empty.out, "");
  EXPECT_EQ(
      empty.err,
      "torchlet: error: Expected a CPU or GPU name after --explain, such as \"RTX 3080 Ti\", but "
      "got an empty string\n");
  const auto one = run_cli("info --compare 'RTX 3080 Ti'", scratch_dir());
  EXPECT_EQ(one.status, 2);
  EXPECT_TRUE(has(one.err, "--compare")) << one.err;
}

TEST(CudaInfoCli, ListsEveryDevice) {
  const auto run = run_cli("info --json", scratch_dir());
  ASSERT_EQ(run.status, 0) << run.err;
  const auto gpu = nlohmann::json::parse(run.out).at("gpu");
  if (gpu.at("device_count") == 0) GTEST_SKIP() << "no GPU";
  const auto text = run_cli("info", scratch_dir());
  for (const auto& d : gpu.at("devices")) {
    EXPECT_TRUE(has(text.out, "Device " + std::to_string(d.at("index").get<int>()))) << text.out;
    EXPECT_TRUE(has(text.out, d.at("name").get<std::string>()));
  }
  EXPECT_EQ(gpu.at("current_device"), 0);
}

}  // namespace
}  // namespace torchlet
#endif
