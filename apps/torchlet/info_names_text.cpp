// torchlet info --explain and --compare as text: what each part of a CPU or GPU name means,
// the table's specs for a known GPU with estimated peaks, and cards side by side.
#include <fmt/format.h>

#include <algorithm>
#include <functional>

#include "info.h"
#include "info_text.h"

namespace torchlet::cli::info {
namespace {

std::string or_dash(const std::string& s) { return s.empty() ? "-" : s; }

std::string known_specs_text(const hw::KnownGpu& k) {
  return fmt::format(
      "{} ({}, {}): {} GB {}, {}-bit, {:.0f} GB/s; compute capability {}.{}; {} SMs; "
      "boost {} MHz [data/gpus.csv, source: {}]",
      k.name, k.chip, k.year, k.vram_gb, k.memory_type, k.bus_width_bits, k.bandwidth_gbs(),
      k.cc_major, k.cc_minor, k.sm_count, k.boost_mhz, k.source);
}

std::string tflops(const std::optional<double>& v) {
  return v ? fmt::format("{:.1f} TFLOP/s", *v) : "-";
}

// Prints labelled rows as columns, one per name, each as wide as its longest cell.
void print_table(const std::vector<std::pair<std::string, std::vector<std::string>>>& table) {
  std::size_t label_width = 0;
  std::vector<std::size_t> widths;
  for (const auto& [label, cells] : table) {
    label_width = std::max(label_width, label.size());
    widths.resize(std::max(widths.size(), cells.size()), 0);
    for (std::size_t i = 0; i < cells.size(); ++i) widths[i] = std::max(widths[i], cells[i].size());
  }
  for (const auto& [label, cells] : table) {
    std::string line = fmt::format("  {:<{}}", label, label_width + 2);
    for (std::size_t i = 0; i < cells.size(); ++i)
      line += fmt::format("{:<{}}", cells[i], widths[i] + 3);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    fmt::print("{}\n", line);
  }
}

template <typename T>
std::vector<std::string> column(const std::vector<const T*>& items,
                                const std::function<std::string(const T&)>& f) {
  std::vector<std::string> out;
  for (const T* item : items) out.push_back(f(*item));
  return out;
}

void compare_gpus(const std::vector<const Explained*>& gpus) {
  using E = Explained;
  auto known = [](const E& e, auto f) -> std::string {
    return e.gpu.known ? f(*e.gpu.known) : "-";
  };
  auto vram = [](const E& e, auto f) -> std::string { return e.gpu.vram ? f(*e.gpu.vram) : "-"; };
  print_table({
      {"GPU", column<E>(gpus, [](const E& e) { return e.input; })},
      {"Table row",
       column<E>(gpus, [&](const E& e) { return known(e, [](auto& k) { return k.name; }); })},
      {"Architecture", column<E>(gpus,
                                 [](const E& e) {
                                   return e.gpu.known ? fmt::format("{} ({}.{})", e.gpu.arch->name,
                                                                    e.gpu.known->cc_major,
                                                                    e.gpu.known->cc_minor)
                                                      : or_dash(e.gpu.name.architecture);
                                 })},
      {"Generation / tier", column<E>(gpus,
                                      [](const E& e) {
                                        return e.gpu.name.tier
                                                   ? fmt::format("{} / {}", e.gpu.name.series,
                                                                 e.gpu.name.tier)
                                                   : or_dash(e.gpu.name.series);
                                      })},
      {"Year", column<E>(gpus,
                         [&](const E& e) {
                           return known(e, [](auto& k) { return std::to_string(k.year); });
                         })},
      {"SMs", column<E>(gpus,
                        [&](const E& e) {
                          return known(e, [](auto& k) { return std::to_string(k.sm_count); });
                        })},
      {"Boost clock", column<E>(gpus,
                                [&](const E& e) {
                                  return known(e, [](auto& k) {
                                    return std::to_string(k.boost_mhz) + " MHz";
                                  });
                                })},
      {"VRAM", column<E>(gpus,
                         [&](const E& e) {
                           return known(e, [](auto& k) {
                             return fmt::format("{} GB {}", k.vram_gb, k.memory_type);
                           });
                         })},
      {"Memory bus", column<E>(gpus,
                               [&](const E& e) {
                                 return known(e, [](auto& k) {
                                   return std::to_string(k.bus_width_bits) + "-bit";
                                 });
                               })},
      {"Bandwidth (est.)", column<E>(gpus,
                                     [&](const E& e) {
                                       return known(e, [](auto& k) {
                                         return fmt::format("{:.0f} GB/s", k.bandwidth_gbs());
                                       });
                                     })},
      {"FP32 (est.)",
       column<E>(gpus,
                 [](const E& e) { return e.gpu.peaks ? tflops(e.gpu.peaks->fp32_tflops) : "-"; })},
      {"FP16 tensor (est.)", column<E>(gpus,
                                       [](const E& e) {
                                         return e.gpu.peaks
                                                    ? tflops(e.gpu.peaks->fp16_tensor_tflops)
                                                    : "-";
                                       })},
      {"BF16 tensor (est.)", column<E>(gpus,
                                       [](const E& e) {
                                         return e.gpu.peaks
                                                    ? tflops(e.gpu.peaks->bf16_tensor_tflops)
                                                    : "-";
                                       })},
      {"fp16 inference", column<E>(gpus,
                                   [&](const E& e) {
                                     return vram(e, [](auto& v) {
                                       return fmt::format("{:.2g} B params",
                                                          v.fp16_inference_params / 1e9);
                                     });
                                   })},
      {"Adam fp32 training", column<E>(gpus,
                                       [&](const E& e) {
                                         return vram(e, [](auto& v) {
                                           return fmt::format("{:.2g} B params",
                                                              v.adam_fp32_training_params / 1e9);
                                         });
                                       })},
  });
  fmt::print(
      "\n  Estimates, not measurements: FP32 = SMs x FP32 lanes per SM x 2 (FMA) x boost clock;\n"
      "  tensor = SMs x dense FP16 tensor FLOP per clock per SM x boost clock (BF16 accumulates\n"
      "  in FP32, at half rate on GeForce); bandwidth = bus bits x Gbps per pin / 8.\n"
      "  Model sizes count parameters only: 2 bytes each for fp16 inference, 16 for Adam in "
      "fp32.\n");
  for (const Explained* e : gpus)
    for (const auto& note : e->gpu.notes) fmt::print("  {}: {}\n", e->input, note);
}

void compare_cpus(const std::vector<const Explained*>& cpus) {
  using E = Explained;
  print_table({
      {"CPU", column<E>(cpus, [](const E& e) { return e.input; })},
      {"Vendor / family",
       column<E>(cpus, [](const E& e) { return or_dash(e.cpu.vendor + " " + e.cpu.family); })},
      {"Tier", column<E>(cpus, [](const E& e) { return or_dash(e.cpu.tier); })},
      {"Generation", column<E>(cpus,
                               [](const E& e) {
                                 return e.cpu.generation ? std::to_string(e.cpu.generation) : "-";
                               })},
      {"Codename", column<E>(cpus, [](const E& e) { return or_dash(e.cpu.codename); })},
      {"Microarchitecture",
       column<E>(cpus, [](const E& e) { return or_dash(e.cpu.microarchitecture); })},
      {"Process", column<E>(cpus, [](const E& e) { return or_dash(e.cpu.process); })},
      {"Model / SKU", column<E>(cpus, [](const E& e) { return or_dash(e.cpu.model_number); })},
      {"Suffixes", column<E>(cpus,
                             [](const E& e) {
                               std::vector<std::string> codes;
                               for (const auto& p : e.cpu.suffixes) codes.push_back(p.text);
                               return codes.empty() ? std::string("-")
                                                    : fmt::format("{}", fmt::join(codes, " "));
                             })},
      {"Base clock", column<E>(cpus,
                               [](const E& e) {
                                 return e.cpu.base_ghz ? fmt::format("{:g} GHz", *e.cpu.base_ghz)
                                                       : "-";
                               })},
      {"Cores",
       column<E>(cpus,
                 [](const E& e) { return e.cpu.cores ? std::to_string(*e.cpu.cores) : "-"; })},
  });
}

}  // namespace

void print_gpu_name(const hw::GpuName& g, int indent, std::string_view heading) {
  if (!heading.empty()) row(heading, "\"" + g.input + "\"", indent);
  if (!heading.empty()) indent += 2;
  if (!g.vendor.empty() || !g.brand.empty())
    row("Vendor / brand", g.vendor + (g.brand.empty() || g.brand == g.vendor ? "" : " " + g.brand),
        indent);
  static const std::pair<const char*, const char*> kForms[] = {
      {"desktop", "desktop card"},
      {"laptop", "laptop GPU"},
      {"datacenter", "data-center GPU"},
      {"workstation", "workstation card"},
      {"embedded", "embedded module (Jetson)"}};
  for (const auto& [form, text] : kForms)
    if (g.form == form) row("Kind", text, indent);
  if (!g.model.empty()) row("Model", g.model, indent);
  if (!g.generation_meaning.empty()) row("Generation", g.generation_meaning, indent);
  if (!g.tier_meaning.empty())
    row("Tier", g.tier ? fmt::format("{} ({})", g.tier, g.tier_meaning) : g.tier_meaning, indent);
  for (const auto& s : g.suffixes) row("Suffix " + s.text, s.meaning, indent);
  row("Not recognised",
      g.unrecognized.empty() ? "(nothing)" : fmt::format("{}", fmt::join(g.unrecognized, " ")),
      indent);
  rows("Name note", g.notes, indent);
}

void print_cpu_name(const hw::CpuName& c, int indent, std::string_view heading) {
  if (!heading.empty()) row(heading, "\"" + c.input + "\"", indent);
  if (!heading.empty()) indent += 2;
  if (!c.vendor.empty())
    row("Vendor / family", c.vendor + (c.family.empty() ? "" : " " + c.family), indent);
  if (!c.tier.empty()) row("Tier", c.tier_meaning.empty() ? c.tier : c.tier_meaning, indent);
  if (!c.generation_meaning.empty()) row("Generation", c.generation_meaning, indent);
  if (!c.model_number.empty())
    row("Model number", c.model_number + (c.sku_meaning.empty() ? "" : "; " + c.sku_meaning),
        indent);
  for (const auto& s : c.suffixes) row("Suffix " + s.text, s.meaning, indent);
  if (c.base_ghz) row("Base clock", fmt::format("{:g} GHz (from the name)", *c.base_ghz), indent);
  if (c.cores)
    row("Cores",
        c.performance_cores && c.efficiency_cores
            ? fmt::format("{} ({} performance + {} efficiency)", *c.cores, *c.performance_cores,
                          *c.efficiency_cores)
            : std::to_string(*c.cores),
        indent);
  row("Not recognised",
      c.unrecognized.empty() ? "(nothing)" : fmt::format("{}", fmt::join(c.unrecognized, " ")),
      indent);
  rows("Name note", c.notes, indent);
}

void print_explained(const Explained& e) {
  const char* kind = e.kind == hw::NameKind::Gpu   ? "GPU"
                     : e.kind == hw::NameKind::Cpu ? "CPU"
                                                   : "unknown";
  fmt::print("\"{}\" ({})\n", e.input, kind);
  if (e.kind == hw::NameKind::Cpu) return print_cpu_name(e.cpu, 2, "");
  if (e.kind == hw::NameKind::Unknown) {
    row("Not recognised", fmt::format("{}", fmt::join(e.words, " ")));
    row("Note", "neither a CPU nor a GPU name torchlet recognises");
    return;
  }
  print_gpu_name(e.gpu.name, 2, "");
  row("Known specs",
      e.gpu.known ? known_specs_text(*e.gpu.known) : "not in torchlet's table of known GPUs");
  if (e.gpu.arch)
    row("Architecture",
        e.gpu.arch->name + ", " + e.gpu.arch->process + ": " + e.gpu.arch->features);
  if (e.gpu.peaks) print_peaks(*e.gpu.peaks, 2);
  if (e.gpu.vram) rows("VRAM verdict", vram_lines(*e.gpu.vram));
  rows("Note", e.gpu.notes);
}

void print_comparison(const std::vector<Explained>& names) {
  std::vector<const Explained*> gpus, cpus, unknown;
  for (const Explained& e : names)
    (e.kind == hw::NameKind::Gpu   ? gpus
     : e.kind == hw::NameKind::Cpu ? cpus
                                   : unknown)
        .push_back(&e);
  fmt::print("Comparison\n");
  if (!gpus.empty()) compare_gpus(gpus);
  if (!gpus.empty() && !cpus.empty()) fmt::print("\n");
  if (!cpus.empty()) compare_cpus(cpus);
  for (const Explained* e : unknown)
    fmt::print("  \"{}\": not a CPU or GPU name torchlet recognises\n", e->input);
}

}  // namespace torchlet::cli::info
