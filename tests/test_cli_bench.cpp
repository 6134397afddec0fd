// End-to-end tests of `torchlet bench` at tiny sizes: each subcommand's JSON, CSV, SVG charts
// and index.html, the counters it reports, and bad arguments refused with one line and exit 2.
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "torchlet/cuda.h"

namespace torchlet {
namespace {

using testing::read_text;
using testing::run_cli;
using testing::scratch_dir;

nlohmann::json run_json(const std::string& args, const std::filesystem::path& dir) {
  testing::CliRun run = run_cli("bench " + args + " --json", dir);
  EXPECT_EQ(run.status, 0) << run.err;
  return nlohmann::json::parse(run.out);  // throws (fails the test) unless one JSON object
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

void expect_svg(const std::filesystem::path& path, const std::string& title_part) {
  const std::string svg = read_text(path);
  EXPECT_TRUE(svg.starts_with("<?xml")) << path;
  EXPECT_TRUE(svg.ends_with("</svg>\n")) << path;
  EXPECT_NE(svg.find(title_part), std::string::npos) << path;
  EXPECT_EQ(svg.find("nan"), std::string::npos) << path;
}

// Lines of a CSV file, the header included.
std::size_t csv_lines(const std::filesystem::path& path) { return count(read_text(path), "\n"); }

TEST(CliBench, OverheadCountsEverySyncAndFitsTheTime) {
  const auto dir = scratch_dir();
  const nlohmann::json j = run_json("overhead --device cpu --epochs 200 --out out", dir);
  EXPECT_EQ(j["bench"], "overhead");
  EXPECT_EQ(j["epochs"], 200);
  ASSERT_EQ(j["results"].size(), 1u);
  const nlohmann::json& cpu = j["results"][0];
  EXPECT_EQ(cpu["device"], "cpu");
  ASSERT_EQ(cpu["runs"].size(), 44u);  // 2 paths x (5 intervals x 2 ways + never) x 2 prints
  for (const nlohmann::json& run : cpu["runs"]) {
    const int64_t every = run["record_every"], print_every = run["print_every"];
    const int64_t records = every ? 200 / every : 0, prints = print_every ? 200 / print_every : 0;
    EXPECT_EQ(run["records"], records);
    EXPECT_EQ(run["prints"], prints);
    // A sync per item(): records read one by one, each printed line, the final loss, and the
    // deferred buffer read once at the end.
    const bool deferred = run["record"] == "deferred";
    const int64_t syncs = (deferred ? 1 : records) + prints + 1;
    EXPECT_EQ(run["counters"]["syncs"], syncs) << run.dump();
    EXPECT_EQ(run["counters"]["d2h_copies"], syncs);
    if (run["path"] == "eager") {  // 13 kernels per step, one more per deferred record
      EXPECT_EQ(run["counters"]["launches"], 13 * 200 + (deferred ? records : 0)) << run.dump();
    }
    EXPECT_GT(run["time_s"].get<double>(), 0.0);
    EXPECT_LT(run["final_loss"].get<double>(), 1.2);  // it trained: ln 3 = 1.0986 at the start
  }
  for (const char* path : {"eager", "replay"}) {
    const nlohmann::json& fit = cpu["fits"][path];
    EXPECT_EQ(fit["runs"], 22);
    EXPECT_TRUE(fit["base_s"].is_number());
    EXPECT_TRUE(fit["per_sync_us"].is_number());
    EXPECT_TRUE(fit["per_print_us"].is_number());
    EXPECT_LE(fit["r2"].get<double>(), 1.0);
  }
  EXPECT_TRUE(cpu["fits"]["replay"]["per_launch_us"].is_number());
  // The files: the same JSON, a CSV row per run, a chart per path, and the page.
  const auto out = dir / "out";
  EXPECT_EQ(nlohmann::json::parse(read_text(out / "overhead.json"))["results"][0]["runs"].size(),
            44u);
  EXPECT_EQ(csv_lines(out / "overhead.csv"), 45u);
  expect_svg(out / "overhead_cpu_eager.svg", "time per epoch vs loss-record interval");
  expect_svg(out / "overhead_cpu_replay.svg", "training time per epoch (us)");
  EXPECT_GT(count(read_text(out / "overhead_cpu_eager.svg"), "stroke-dasharray=\"7 4\""), 0u);
  const std::string html = read_text(out / "index.html");
  EXPECT_NE(html.find("<img src=\"overhead_cpu_eager.svg\""), std::string::npos);
  EXPECT_NE(html.find("overhead.csv"), std::string::npos);
  EXPECT_NE(html.find("fit over 22 runs"), std::string::npos);
}

TEST(CliBench, OverheadReportIsATablePerPathWithItsFit) {
  const auto dir = scratch_dir();
  const testing::CliRun run = run_cli("bench overhead --device cpu --epochs 20", dir);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(count(run.out, "record every     print    time s  us/epoch"), 2u) << run.out;
  EXPECT_NE(run.out.find("time = base + per_sync x syncs + per_print x prints"), std::string::npos);
  EXPECT_NE(run.out.find("the course's loop (item() every epoch, print every 100)"),
            std::string::npos);
  if (!cuda::is_available()) {
    EXPECT_NE(run.out.find("No GPU here"), std::string::npos);
  }
  EXPECT_EQ(run.out.find("Epoch ["), std::string::npos);  // printed lines go to /dev/null
}

TEST(CliBench, CrossoverMeasuresEveryCellAndSaysWhereTheGpuWins) {
  const auto dir = scratch_dir();
  const nlohmann::json j = run_json(
      "crossover --device cpu --epochs 2 --widths 16,8 --rows 30,60 --depth 1,2 --out out", dir);
  EXPECT_EQ(j["widths"], nlohmann::json({8, 16}));  // sorted
  ASSERT_EQ(j["results"].size(), 1u);
  const nlohmann::json& cpu = j["results"][0];
  EXPECT_GT(cpu["gemm_gflops"].get<double>(), 0.0);
  ASSERT_EQ(cpu["cells"].size(), 8u);
  for (const nlohmann::json& c : cpu["cells"]) {
    ASSERT_TRUE(c["measured"].get<bool>()) << c.dump();
    EXPECT_GE(c["epochs"].get<int>(), 1);
    EXPECT_LE(c["epochs"].get<int>(), 2);
    const double share = c["arithmetic_share"];
    EXPECT_GT(share, 0.0);
    EXPECT_LE(share, 1.0);
    EXPECT_DOUBLE_EQ(share + c["overhead_share"].get<double>(), 1.0);
    // Depth d has d + 1 Linear layers (products this small: one GEMM with the bias add in its
    // store) and d ReLUs. Forward: (d + 1) + d + cross-entropy = 2d + 2. Backward: the seed
    // fill, cross-entropy, dW and db of the first layer, dX, dW, db of the others, each ReLU =
    // 4d + 4. SGD: 1. In all 6d + 7.
    const int depth = c["depth"];
    EXPECT_DOUBLE_EQ(c["per_epoch"]["launches"].get<double>(), 6.0 * depth + 7.0) << c.dump();
  }
  // FLOPs of depth 1, width 8, 30 rows: forward 2*(4*8 + 8*3), weight gradients the same,
  // input gradients of the second layer 2*8*3, per row.
  EXPECT_DOUBLE_EQ(cpu["cells"][0]["flops"].get<double>(), 30.0 * (4 * 56 + 48));
  if (!cuda::is_available()) {
    EXPECT_TRUE(j["crossovers"].empty());
    EXPECT_NE(j["note"].get<std::string>().find("no GPU to compare"), std::string::npos);
  }
  const auto out = dir / "out";
  EXPECT_EQ(csv_lines(out / "crossover.csv"), 9u);
  for (const char* f : {"crossover_depth1_rows.svg", "crossover_depth1_width.svg",
                        "crossover_depth2_rows.svg", "crossover_depth2_width.svg"})
    expect_svg(out / f, "time per epoch (ms, log scale)");
  const std::string html = read_text(out / "index.html");
  EXPECT_EQ(count(html, "<img src=\"crossover_depth"), 4u);
  EXPECT_NE(html.find("Where the GPU starts to win"), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(read_text(out / "crossover.json"))["bench"], "crossover");
}

TEST(CliBench, CrossoverSkipsCellsOverItsLimitsAndSaysWhy) {
  const auto dir = scratch_dir();
  const nlohmann::json j = run_json(
      "crossover --device cpu --widths 8 --rows 30 --depth 1 --max-epoch-seconds 1e-12 --out o",
      dir);
  const nlohmann::json& cell = j["results"][0]["cells"][0];
  EXPECT_FALSE(cell["measured"].get<bool>());
  EXPECT_NE(cell["skipped"].get<std::string>().find("--max-epoch-seconds"), std::string::npos);
  EXPECT_NE(read_text(dir / "o" / "crossover.csv").find("--max-epoch-seconds"), std::string::npos);
  expect_svg(dir / "o" / "crossover_depth1_rows.svg", "no data");
}

TEST(CliBench, MlpReportsSamplesPerSecondAndCountsPerStep) {
  const auto dir = scratch_dir();
  const nlohmann::json j =
      run_json("mlp --device cpu --layers 8,16,4 --batch 16 --samples 70 --out out", dir);
  EXPECT_EQ(j["layers"], nlohmann::json({8, 16, 4}));
  const nlohmann::json& cpu = j["results"][0];
  EXPECT_EQ(cpu["steps"], 5);  // 70 rows in batches of 16
  EXPECT_GT(cpu["samples_per_s"].get<double>(), 0.0);
  EXPECT_EQ(cpu["counters"]["launches"], 13 * 5);  // the course's 13 kernels per step
  EXPECT_EQ(j["flops_per_sample"], 2 * 2 * (8 * 16 + 16 * 4) + 2 * 16 * 4);
  const auto out = dir / "out";
  expect_svg(out / "mlp_throughput.svg", "samples per second");
  EXPECT_EQ(csv_lines(out / "mlp.csv"), 2u);
  EXPECT_NE(read_text(out / "index.html").find("mlp_throughput.svg"), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(read_text(out / "mlp.json"))["results"][0]["steps"], 5);
}

TEST(CliBench, BadArgumentsGiveOneLineAndStatus2) {
  const auto dir = scratch_dir();
  struct Case {
    std::string args, message;
  };
  std::vector<Case> cases = {
      {"bench", "A subcommand is required"},
      {"bench overhead --epochs 0", "--epochs: Expected a number > 0, but got 0"},
      {"bench overhead --repeats 0", "--repeats: Expected a number in [1, 100]"},
      {"bench overhead --device tpu", "--device: Expected all, cpu, cuda or cuda:N, but got 'tpu'"},
      {"bench overhead --print-to /nonexistent/dir/x", "--print-to /nonexistent/dir/x"},
      {"bench overhead --out /proc/version/sub", "--out /proc/version/sub"},
      {"bench crossover --widths 8,0", "--widths: Expected values in [1, 65536], but got 0"},
      {"bench crossover --rows x", "--rows"},
      {"bench crossover --depth 99", "--depth: Expected values in [1, 16], but got 99"},
      {"bench mlp --layers 5", "--layers: Expected at least two widths"},
      {"bench mlp --batch -1", "--batch: Expected a number > 0, but got -1"},
  };
  if (!cuda::is_available()) {
    cases.push_back({"bench overhead --device cuda",
                     "--device cuda: Expected a CUDA device, but none is available"});
    cases.push_back({"bench crossover --device cuda:0", "--device cuda:0: Expected a CUDA device"});
    cases.push_back({"bench mlp --device cuda", "none is available"});
  }
  for (const Case& c : cases) {
    const testing::CliRun run = run_cli(c.args, dir);
    EXPECT_EQ(run.status, 2) << c.args << "\n" << run.err;
    EXPECT_EQ(count(run.err, "\n"), 1u) << c.args << "\n" << run.err;
    EXPECT_TRUE(run.err.starts_with("torchlet: error: ")) << c.args << "\n" << run.err;
    EXPECT_NE(run.err.find(c.message), std::string::npos) << c.args << "\n" << run.err;
    EXPECT_TRUE(run.out.empty()) << c.args << "\n" << run.out;
  }
  EXPECT_FALSE(std::filesystem::exists("/proc/version/sub"));
}

}  // namespace
}  // namespace torchlet
