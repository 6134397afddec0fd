// `torchlet info`: this machine's CPU and GPU judged the way the course does, or the names a
// user types explained (--explain) and compared (--compare), as text or JSON (--json).
#include "info.h"

#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <memory>

#include "commands.h"
#include "distributed_cli.h"
#include "json_output.h"
#include "torchlet/error.h"
#include "torchlet/hw/names.h"
#include "torchlet/version.h"

namespace torchlet::cli {

info::Explained info::explain(const std::string& name) {
  Explained e;
  e.input = name;
  e.kind = hw::guess_name_kind(name);
  if (e.kind == hw::NameKind::Cpu) e.cpu = hw::parse_cpu_name(name);
  if (e.kind == hw::NameKind::Gpu) e.gpu = hw::explain_gpu(name);
  if (e.kind == hw::NameKind::Unknown) e.words = hw::parse_gpu_name(name).unrecognized;
  return e;
}

namespace {

struct InfoOptions {
  bool json = false;
  std::vector<std::string> explain;
  std::vector<std::string> compare;
};

std::vector<info::Explained> explain_all(const std::vector<std::string>& names,
                                         const char* option) {
  std::vector<info::Explained> out;
  for (const std::string& name : names) {
    TORCHLET_CHECK(name.find_first_not_of(" \t") != std::string::npos,
                   "Expected a CPU or GPU name after ", option,
                   ", such as \"RTX 3080 Ti\", but got an empty string");
    out.push_back(info::explain(name));
  }
  return out;
}

// The ranks of an mpirun / srun launch this process belongs to, and the device a rank would
// train on (one GPU a rank, by local rank, where there are GPUs).
struct Ranks {
  RanksInfo info;
  std::string device;
};

Ranks ranks(const hw::GpuReport& gpu) {
  const RanksInfo r = ranks_info();
  const std::string device = gpu.cuda_available && gpu.device_count > 0
                                 ? fmt::format("cuda:{}", r.local_rank % gpu.device_count)
                                 : "cpu";
  return {r, device};
}

nlohmann::json ranks_json(const Ranks& r) {
  return {{"world_size", r.info.world_size},
          {"rank", r.info.rank},
          {"local_rank", r.info.local_rank},
          {"launcher",
           r.info.launcher.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.info.launcher)},
          {"mpi_built", r.info.mpi_built},
          {"device", r.device}};
}

void print_ranks(const Ranks& r) {
  fmt::print("Ranks\n");
  fmt::print("  {:<20}{}\n", "processes",
             r.info.launcher.empty()
                 ? std::string("1 (no mpirun or srun launch)")
                 : fmt::format("{} ({}): this is rank {}, local rank {}", r.info.world_size,
                               r.info.launcher, r.info.rank, r.info.local_rank));
  fmt::print("  {:<20}{}\n", "device", r.device);
  fmt::print("  {:<20}{}\n", "MPI built in",
             r.info.mpi_built ? "yes (mpirun -np N torchlet train ...)" : "no");
}

void run_info(const InfoOptions& o) {
  const bool names_only = !o.explain.empty() || !o.compare.empty();
  const std::vector<info::Explained> explained = explain_all(o.explain, "--explain");
  const std::vector<info::Explained> compared = explain_all(o.compare, "--compare");
  if (o.json) {
    nlohmann::json out = {{"schema_version", info::kJsonSchemaVersion},
                          {"torchlet_version", TORCHLET_VERSION}};
    if (!names_only) {
      const hw::GpuReport gpu = hw::gpu_report();
      out["cpu"] = info::cpu_json(hw::cpu_report());
      out["gpu"] = info::gpu_json(gpu);
      out["ranks"] = ranks_json(ranks(gpu));
    }
    if (!o.explain.empty()) {
      out["explain"] = nlohmann::json::array();
      for (const auto& e : explained) out["explain"].push_back(info::explained_json(e));
    }
    if (!o.compare.empty()) {
      out["compare"] = nlohmann::json::array();
      for (const auto& e : compared) out["compare"].push_back(info::explained_json(e));
    }
    print_json_line(out, 2);
    return;
  }
  if (!names_only) {
    fmt::print("torchlet {} hardware report\n\n", TORCHLET_VERSION);
    info::print_cpu(hw::cpu_report());
    fmt::print("\n");
    const hw::GpuReport gpu = hw::gpu_report();
    info::print_gpu(gpu);
    fmt::print("\n");
    print_ranks(ranks(gpu));
  }
  for (std::size_t i = 0; i < explained.size(); ++i) {
    if (i) fmt::print("\n");
    info::print_explained(explained[i]);
  }
  if (!compared.empty()) {
    if (!explained.empty()) fmt::print("\n");
    info::print_comparison(compared);
  }
}

}  // namespace

void add_info_command(CLI::App& app) {
  auto options = std::make_shared<InfoOptions>();
  CLI::App* info = app.add_subcommand(
      "info",
      "What hardware this machine has and how good it is for deep learning; or what a "
      "CPU or GPU name means");
  info->add_flag("--json", options->json, "Print one JSON object (fields: docs/info.md)");
  info->add_option("--explain", options->explain,
                   "Explain a CPU or GPU name, e.g. \"RTX 4070 Ti SUPER\" (repeatable)")
      ->expected(1, -1);
  info->add_option("--compare", options->compare,
                   "Compare two or more GPU (or CPU) names side by side, with estimated peaks")
      ->expected(2, -1);
  info->callback([options] { run_info(*options); });
}

}  // namespace torchlet::cli
