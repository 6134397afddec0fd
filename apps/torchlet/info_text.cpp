// torchlet info as readable text: the CPU and GPU sections of this machine's report. Every
// estimate is printed with the word "estimate" and its formula. Names: info_names_text.cpp.
#include "info_text.h"

#include <fmt/format.h>

#include <algorithm>

#include "info.h"

namespace torchlet::cli::info {

void row(std::string_view label, std::string_view value, int indent) {
  const std::size_t width = std::max<std::size_t>(kValueColumn - indent, label.size() + 1);
  fmt::print("{}{:<{}}{}\n", std::string(static_cast<std::size_t>(indent), ' '), label, width,
             value);
}

void rows(std::string_view label, const std::vector<std::string>& values, int indent) {
  for (std::size_t i = 0; i < values.size(); ++i) row(i == 0 ? label : "", values[i], indent);
}

std::string bytes_text(uint64_t bytes) {
  if (bytes >= (1ull << 30)) return fmt::format("{:.1f} GiB", bytes / 1073741824.0);
  if (bytes >= (1ull << 20)) return fmt::format("{} MiB", bytes >> 20);
  return fmt::format("{} KiB", bytes >> 10);
}

std::string mhz_text(double mhz) {
  return mhz >= 1000 ? fmt::format("{:.2f} GHz", mhz / 1000.0) : fmt::format("{:.0f} MHz", mhz);
}

std::vector<std::string> vram_lines(const hw::VramVerdict& v) {
  return {fmt::format("{}: {}", bytes_text(v.bytes), v.vram_class),
          fmt::format("fp16 inference: up to {:.2g} billion parameters (2 bytes each)",
                      v.fp16_inference_params / 1e9),
          fmt::format("Adam fp32 training: up to {:.2g} billion parameters (16 bytes each: "
                      "weights 4, gradients 4, Adam moments 8)",
                      v.adam_fp32_training_params / 1e9),
          "parameters only: activations, batch and framework overhead need more"};
}

void print_peaks(const hw::GpuPeaks& p, int indent) {
  if (p.fp32_tflops)
    row("Peak FP32", fmt::format("{:.1f} TFLOP/s (estimate: {})", *p.fp32_tflops, p.fp32_formula),
        indent);
  if (p.fp16_tensor_tflops)
    row("Peak FP16 tensor",
        fmt::format("{:.1f} TFLOP/s dense (estimate: {})", *p.fp16_tensor_tflops, p.tensor_formula),
        indent);
  if (p.bf16_tensor_tflops)
    row("Peak BF16 tensor",
        fmt::format("{:.1f} TFLOP/s dense (estimate, FP32 accumulate)", *p.bf16_tensor_tflops),
        indent);
  if (p.bandwidth_gbs)
    row("Memory bandwidth",
        fmt::format("{:.0f} GB/s (estimate: {})", *p.bandwidth_gbs, p.bandwidth_formula), indent);
  rows("Estimate notes", p.notes, indent);
}

namespace {

// As lscpu counts them: "L2 512 KiB x 2 (1 MiB)".
std::string cache_text(const char* name, const hw::CacheLevel& c) {
  if (!c.instances) return "";
  const std::string one = fmt::format("{} {}", name, bytes_text(c.size_bytes));
  return c.instances == 1 ? one
                          : fmt::format("{} x {} ({})", one, c.instances,
                                        bytes_text(c.size_bytes * c.instances));
}

std::string frequency_text(const hw::CpuReport& c) {
  std::vector<std::string> parts;
  if (c.base_mhz) parts.push_back("base " + mhz_text(*c.base_mhz));
  if (c.max_mhz) parts.push_back("max " + mhz_text(*c.max_mhz));
  if (c.current_mhz) parts.push_back("current " + mhz_text(*c.current_mhz));
  if (parts.empty()) return "not exposed by this system";
  std::string out = parts[0];
  for (std::size_t i = 1; i < parts.size(); ++i) out += ", " + parts[i];
  return out + " (" + c.frequency_source + ")";
}

std::string library_text(const hw::LibraryStatus& l, const std::string& version) {
  if (!l.found) return "not found (" + l.error + ")";
  return (version.empty() ? std::string("found") : version) + " (" + l.path + ")";
}

}  // namespace

void print_cpu(const hw::CpuReport& c) {
  fmt::print("CPU\n");
  row("Model name", c.model_name.empty() ? "unknown" : c.model_name);
  if (!c.normalized_name.empty() && c.normalized_name != c.model_name)
    row("libcpuinfo name", c.normalized_name);
  row("Vendor", c.vendor.empty() ? "unknown" : c.vendor);
  row("Architecture", c.architecture);
  std::string uarch = c.microarchitecture.empty() ? "unknown" : c.microarchitecture;
  if (!c.codename.empty() || !c.process.empty())
    uarch +=
        " (" + c.codename + (c.codename.empty() || c.process.empty() ? "" : ", ") + c.process + ")";
  if (!c.uarch_source.empty()) uarch += " [" + c.uarch_source + "]";
  row("Microarchitecture", uarch);
  row("Sockets", std::to_string(c.sockets));
  std::string cores = std::to_string(c.physical_cores);
  if (c.hybrid)
    cores += fmt::format(" ({} performance + {} efficiency)", c.core_kinds[0].cores,
                         c.core_kinds[1].cores);
  row("Physical cores", cores);
  row("Logical threads",
      c.physical_cores > 0 && c.logical_threads % c.physical_cores == 0 && !c.hybrid
          ? fmt::format("{} ({} per core)", c.logical_threads, c.logical_threads / c.physical_cores)
          : std::to_string(c.logical_threads));
  row("Frequency", frequency_text(c));
  if (c.hybrid)
    for (const auto& k : c.core_kinds)
      row("", fmt::format("{} cores: {}{}", k.kind, k.microarchitecture,
                          k.max_mhz ? ", max " + mhz_text(*k.max_mhz) : ""));
  std::vector<std::string> caches;
  for (const auto& s : {cache_text("L1d", c.l1d), cache_text("L1i", c.l1i), cache_text("L2", c.l2),
                        cache_text("L3", c.l3)})
    if (!s.empty()) caches.push_back(s);
  row("Caches", caches.empty() ? "unknown" : fmt::format("{}", fmt::join(caches, ", ")));
  std::vector<std::string> yes, no;
  for (const auto& f : c.isa) (f.present ? yes : no).push_back(f.name);
  row("Instruction sets",
      "yes: " + (yes.empty() ? std::string("none") : fmt::format("{}", fmt::join(yes, " "))));
  row("", "no:  " + (no.empty() ? std::string("none") : fmt::format("{}", fmt::join(no, " "))));
  if (c.peak_fp32) {
    row("Peak FP32",
        fmt::format("{:.1f} GFLOP/s (estimate: {})", c.peak_fp32->gflops, c.peak_fp32->formula));
    for (const auto& a : c.peak_fp32->assumptions) row("", a);
  }
  print_cpu_name(c.name, 2, "The name says");
  rows("Note", c.notes);
}

void print_gpu(const hw::GpuReport& g) {
  fmt::print("GPU\n");
  row("Built with CUDA", g.built_with_cuda ? "yes" : "no (CPU-only build)");
  row("CUDA available", g.cuda_available ? "yes" : "no");
  rows("  why not", g.reasons);
  row("NVIDIA driver", g.driver_version.empty() ? (g.driver.found ? "version unknown" : "not found")
                                                : g.driver_version);
  row("CUDA driver API", g.cuda_driver_version ? hw::format_cuda_version(*g.cuda_driver_version) +
                                                     " (the newest CUDA the driver supports)"
                                               : "unknown (needs the driver)");
  row("CUDA runtime",
      g.runtime.found
          ? library_text(g.runtime, g.cuda_runtime_version
                                        ? hw::format_cuda_version(*g.cuda_runtime_version)
                                        : "") +
                ", found at run time"
          : "not found (" + g.runtime.error + ")");
  row("cuDNN",
      library_text(g.cudnn, g.cudnn_version ? hw::format_cudnn_version(*g.cudnn_version) : ""));
  row("NVML", g.nvml.found ? "found (" + g.nvml.path + ")" +
                                 (g.nvml.error.empty() ? "" : ": " + g.nvml.error)
                           : "not found (" + g.nvml.error + ")");
  if (g.pci_nvidia_gpus > 0) row("NVIDIA GPUs on PCI", std::to_string(g.pci_nvidia_gpus));
  row("Device count", std::to_string(g.device_count));
  row("Current device", g.current_device >= 0 ? std::to_string(g.current_device) : "none");
  for (const auto& d : g.devices) {
    row(fmt::format("Device {}", d.index), d.name + " (" + d.pci_bus_id + ")");
    row("VRAM",
        bytes_text(d.total_bytes) + " total" +
            (d.free_bytes ? ", " + bytes_text(*d.free_bytes) + " free"
                          : ", free unknown (needs NVML)"),
        4);
    row("Architecture",
        fmt::format("{}, compute capability {}.{}, {} SMs; {}", d.arch.name, d.cc_major, d.cc_minor,
                    d.sm_count, d.arch.features),
        4);
    std::string clocks =
        d.sm_clock_mhz ? "SM " + mhz_text(*d.sm_clock_mhz) + " (max)" : "SM unknown";
    if (d.memory_clock_mhz) clocks += ", memory " + mhz_text(*d.memory_clock_mhz);
    row("Clocks", clocks, 4);
    row("Memory bus", d.bus_width_bits ? std::to_string(d.bus_width_bits) + "-bit" : "unknown", 4);
    if (d.l2_bytes) row("L2 cache", bytes_text(static_cast<uint64_t>(d.l2_bytes)), 4);
    row("PCIe",
        d.pcie_gen_max ? fmt::format("gen {} x{} (max), now gen {} x{}", *d.pcie_gen_max,
                                     d.pcie_width_max.value_or(0), d.pcie_gen_current.value_or(0),
                                     d.pcie_width_current.value_or(0))
                       : "unknown (needs NVML)",
        4);
    print_peaks(d.peaks, 4);
    print_gpu_name(d.name_info, 4, "The name says");
    if (!d.integrated) rows("VRAM verdict", vram_lines(d.vram), 4);
    rows("Note", d.notes, 4);
  }
}

}  // namespace torchlet::cli::info
