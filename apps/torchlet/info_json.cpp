// torchlet info --json: the reports and explanations as JSON. The field names are a stable
// interface documented in docs/info.md; absent values are null, never missing keys.
#include <cmath>

#include "info.h"

namespace torchlet::cli::info {
namespace {

using nlohmann::json;

template <typename T>
json opt(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}
json opt_str(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }
json positive(int v) { return v > 0 ? json(v) : json(nullptr); }
double rounded(double v, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::round(v * scale) / scale;
}
json rounded(const std::optional<double>& v, int decimals) {
  return v ? json(rounded(*v, decimals)) : json(nullptr);
}

json parts_json(const std::vector<hw::NamePart>& parts) {
  json out = json::array();
  for (const auto& p : parts) out.push_back({{"text", p.text}, {"meaning", p.meaning}});
  return out;
}

json library_json(const hw::LibraryStatus& l) {
  return {{"found", l.found}, {"path", opt_str(l.path)}, {"error", opt_str(l.error)}};
}

json cache_json(const hw::CacheLevel& c) {
  if (c.instances == 0) return nullptr;
  return {{"size_bytes", c.size_bytes}, {"instances", c.instances}};
}

json gpu_name_json(const hw::GpuName& g) {
  return {{"input", g.input},
          {"recognized", g.recognized()},
          {"vendor", opt_str(g.vendor)},
          {"brand", opt_str(g.brand)},
          {"form", opt_str(g.form)},
          {"model", opt_str(g.model)},
          {"series", opt_str(g.series)},
          {"generation", positive(g.generation)},
          {"generation_meaning", opt_str(g.generation_meaning)},
          {"architecture", opt_str(g.architecture)},
          {"tier", positive(g.tier)},
          {"tier_meaning", opt_str(g.tier_meaning)},
          {"suffixes", parts_json(g.suffixes)},
          {"memory_gb_in_name", opt(g.memory_gb)},
          {"unrecognized", g.unrecognized},
          {"notes", g.notes}};
}

json cpu_name_json(const hw::CpuName& c) {
  return {{"input", c.input},
          {"recognized", c.recognized()},
          {"vendor", opt_str(c.vendor)},
          {"family", opt_str(c.family)},
          {"tier", opt_str(c.tier)},
          {"tier_meaning", opt_str(c.tier_meaning)},
          {"generation", positive(c.generation)},
          {"generation_meaning", opt_str(c.generation_meaning)},
          {"codename", opt_str(c.codename)},
          {"microarchitecture", opt_str(c.microarchitecture)},
          {"process", opt_str(c.process)},
          {"model_number", opt_str(c.model_number)},
          {"sku", opt_str(c.sku)},
          {"sku_meaning", opt_str(c.sku_meaning)},
          {"suffixes", parts_json(c.suffixes)},
          {"base_ghz", opt(c.base_ghz)},
          {"cores", opt(c.cores)},
          {"performance_cores", opt(c.performance_cores)},
          {"efficiency_cores", opt(c.efficiency_cores)},
          {"unrecognized", c.unrecognized},
          {"notes", c.notes}};
}

json arch_json(const hw::GpuArch& a) {
  return {{"name", a.name},
          {"process", opt_str(a.process)},
          {"features", opt_str(a.features)},
          {"fp32_lanes_per_sm", a.fp32_lanes_per_sm},
          {"tensor_flops_per_clock_per_sm", a.tensor_flops_per_clock_per_sm},
          {"bf16_tensor_cores", a.bf16},
          {"known", a.known}};
}

json estimates_json(const hw::GpuPeaks& p) {
  return {{"fp32_tflops", rounded(p.fp32_tflops, 2)},
          {"fp16_tensor_tflops", rounded(p.fp16_tensor_tflops, 2)},
          {"bf16_tensor_tflops", rounded(p.bf16_tensor_tflops, 2)},
          {"bandwidth_gbs", rounded(p.bandwidth_gbs, 1)},
          {"fp32_formula", opt_str(p.fp32_formula)},
          {"tensor_formula", opt_str(p.tensor_formula)},
          {"bandwidth_formula", opt_str(p.bandwidth_formula)},
          {"notes", p.notes}};
}

json vram_json(const std::optional<hw::VramVerdict>& v) {
  if (!v || v->bytes == 0) return nullptr;
  return {{"bytes", v->bytes},
          {"gib", rounded(v->bytes / 1073741824.0, 2)},
          {"fp16_inference_params", std::llround(v->fp16_inference_params)},
          {"adam_fp32_training_params", std::llround(v->adam_fp32_training_params)},
          {"class", v->vram_class},
          {"basis",
           "parameters only: 2 bytes per parameter for fp16 inference, 16 for Adam in "
           "fp32 (weights 4, gradients 4, Adam moments 8); activations, batch and "
           "framework overhead need more"}};
}

json known_json(const hw::KnownGpu& k) {
  return {{"name", k.name},
          {"form", k.form},
          {"year", k.year},
          {"chip", k.chip},
          {"compute_capability", std::to_string(k.cc_major) + "." + std::to_string(k.cc_minor)},
          {"sm_count", k.sm_count},
          {"boost_mhz", k.boost_mhz},
          {"vram_gb", k.vram_gb},
          {"memory_type", k.memory_type},
          {"memory_bus_width_bits", k.bus_width_bits},
          {"memory_gbps_per_pin", k.memory_gbps},
          {"bandwidth_gbs", rounded(k.bandwidth_gbs(), 1)},
          {"source", k.source},
          {"notes", opt_str(k.notes)}};
}

json device_json(const hw::GpuDevice& d) {
  return {{"index", d.index},
          {"name", d.name},
          {"pci_bus_id", d.pci_bus_id},
          {"vram_total_bytes", d.total_bytes},
          {"vram_free_bytes", opt(d.free_bytes)},
          {"compute_capability", std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor)},
          {"architecture", arch_json(d.arch)},
          {"sm_count", d.sm_count},
          {"sm_clock_mhz", opt(d.sm_clock_mhz)},
          {"memory_clock_mhz", opt(d.memory_clock_mhz)},
          {"memory_bus_width_bits", positive(d.bus_width_bits)},
          {"l2_cache_bytes", positive(d.l2_bytes)},
          {"integrated", d.integrated},
          {"pcie",
           {{"gen_max", opt(d.pcie_gen_max)},
            {"width_max", opt(d.pcie_width_max)},
            {"gen_current", opt(d.pcie_gen_current)},
            {"width_current", opt(d.pcie_width_current)}}},
          {"estimates", estimates_json(d.peaks)},
          {"vram_verdict", vram_json(d.integrated ? std::nullopt : std::optional(d.vram))},
          {"name_info", gpu_name_json(d.name_info)},
          {"notes", d.notes}};
}

}  // namespace

json cpu_json(const hw::CpuReport& c) {
  json kinds = json::array();
  for (const auto& k : c.core_kinds)
    kinds.push_back({{"kind", k.kind},
                     {"cores", k.cores},
                     {"threads", k.threads},
                     {"max_mhz", opt(k.max_mhz)},
                     {"microarchitecture", opt_str(k.microarchitecture)},
                     {"fp32_flops_per_cycle", positive(k.fp32_flops_per_cycle)}});
  json isa = json::object();
  for (const auto& f : c.isa) isa[f.name] = f.present;
  json peak = nullptr;
  if (c.peak_fp32)
    peak = {{"gflops", rounded(c.peak_fp32->gflops, 1)},
            {"formula", c.peak_fp32->formula},
            {"assumptions", c.peak_fp32->assumptions}};
  return {{"architecture", c.architecture},
          {"vendor", opt_str(c.vendor)},
          {"model_name", opt_str(c.model_name)},
          {"normalized_name", opt_str(c.normalized_name)},
          {"microarchitecture", opt_str(c.microarchitecture)},
          {"microarchitecture_source", opt_str(c.uarch_source)},
          {"codename", opt_str(c.codename)},
          {"process", opt_str(c.process)},
          {"x86_family", c.family >= 0 ? json(c.family) : json(nullptr)},
          {"x86_model", c.model >= 0 ? json(c.model) : json(nullptr)},
          {"x86_stepping", c.stepping >= 0 ? json(c.stepping) : json(nullptr)},
          {"sockets", c.sockets},
          {"physical_cores", c.physical_cores},
          {"logical_threads", c.logical_threads},
          {"hybrid", c.hybrid},
          {"core_kinds", kinds},
          {"frequency_mhz",
           {{"base", rounded(c.base_mhz, 1)},
            {"max", rounded(c.max_mhz, 1)},
            {"current", rounded(c.current_mhz, 1)},
            {"source", opt_str(c.frequency_source)}}},
          {"caches",
           {{"l1d", cache_json(c.l1d)},
            {"l1i", cache_json(c.l1i)},
            {"l2", cache_json(c.l2)},
            {"l3", cache_json(c.l3)}}},
          {"isa", isa},
          {"peak_fp32_estimate", peak},
          {"virtualized", c.virtualized},
          {"name_info", cpu_name_json(c.name)},
          {"notes", c.notes}};
}

json gpu_json(const hw::GpuReport& g) {
  json devices = json::array();
  for (const auto& d : g.devices) devices.push_back(device_json(d));
  return {{"built_with_cuda", g.built_with_cuda},
          {"cuda_available", g.cuda_available},
          {"unavailable_reasons", g.reasons},
          {"driver_library", library_json(g.driver)},
          {"nvml_library", library_json(g.nvml)},
          {"cuda_runtime_library", library_json(g.runtime)},
          {"cudnn_library", library_json(g.cudnn)},
          {"driver_version", opt_str(g.driver_version)},
          {"cuda_driver_version", g.cuda_driver_version
                                      ? json(hw::format_cuda_version(*g.cuda_driver_version))
                                      : json(nullptr)},
          {"cuda_runtime_version", g.cuda_runtime_version
                                       ? json(hw::format_cuda_version(*g.cuda_runtime_version))
                                       : json(nullptr)},
          {"cudnn_version",
           g.cudnn_version ? json(hw::format_cudnn_version(*g.cudnn_version)) : json(nullptr)},
          {"pci_nvidia_gpus", g.pci_nvidia_gpus},
          {"device_count", g.device_count},
          {"current_device", g.current_device >= 0 ? json(g.current_device) : json(nullptr)},
          {"devices", devices}};
}

json explained_json(const Explained& e) {
  const bool gpu = e.kind == hw::NameKind::Gpu;
  json out = {{"input", e.input},
              {"kind", gpu                           ? "gpu"
                       : e.kind == hw::NameKind::Cpu ? "cpu"
                                                     : "unknown"},
              {"name_info", nullptr},
              {"known_specs", gpu && e.gpu.known ? known_json(*e.gpu.known) : json(nullptr)},
              {"architecture", gpu && e.gpu.arch ? arch_json(*e.gpu.arch) : json(nullptr)},
              {"estimates", gpu && e.gpu.peaks ? estimates_json(*e.gpu.peaks) : json(nullptr)},
              {"vram_verdict", gpu ? vram_json(e.gpu.vram) : json(nullptr)},
              {"unrecognized", e.words},
              {"notes", gpu ? e.gpu.notes : std::vector<std::string>{}}};
  if (gpu) {
    out["name_info"] = gpu_name_json(e.gpu.name);
    out["unrecognized"] = e.gpu.name.unrecognized;
  } else if (e.kind == hw::NameKind::Cpu) {
    out["name_info"] = cpu_name_json(e.cpu);
    out["unrecognized"] = e.cpu.unrecognized;
  } else {
    out["notes"] = {"neither a CPU nor a GPU name torchlet recognises"};
  }
  return out;
}

}  // namespace torchlet::cli::info
