// Compute capability to architecture, the peak estimates, the VRAM verdict, version strings,
// and explain_gpu, which puts a name's parse, its table row and the estimates together.
#include "torchlet/hw/gpu_specs.h"

#include "hw/text.h"

namespace torchlet::hw {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

std::string ghz(double mhz) { return text::fixed(mhz / 1000.0, 3) + " GHz"; }

}  // namespace

// FP32 lanes per SM: CUDA Programming Guide throughput table and helper_cuda.h
// _ConvertSMVer2Cores. Dense FP16 tensor FLOPs per clock per SM: NVIDIA's Volta, Turing,
// Ampere (GA100, GA102), Ada, Hopper and Blackwell whitepapers (peak TFLOPS / SMs / boost).
GpuArch gpu_arch(int major, int minor) {
  const int cc = major * 10 + minor;
  auto arch = [](const char* name, const char* process, const char* features, int lanes, int tensor,
                 bool bf16) { return GpuArch{name, process, features, lanes, tensor, bf16, true}; };
  if (major == 3)
    return arch("Kepler", "28 nm", "no tensor cores; current CUDA no longer supports it", 192, 0,
                false);
  if (major == 5)
    return arch("Maxwell", "28 nm", "no tensor cores; CUDA 13 no longer builds for it", 128, 0,
                false);
  if (cc == 60)
    return arch("Pascal", "16 nm",
                "no tensor cores, fast FP16 on GP100; CUDA 13 no longer builds for it", 64, 0,
                false);
  if (major == 6)
    return arch("Pascal", "16 nm", "no tensor cores; CUDA 13 no longer builds for it", 128, 0,
                false);
  if (cc == 70 || cc == 72)
    return arch("Volta", "12 nm",
                "the first tensor cores (FP16), no BF16; CUDA 13 no longer builds for it", 64, 1024,
                false);
  if (cc == 75)
    return arch("Turing", "12 nm", "tensor cores for FP16 and INT8, no BF16 or FlashAttention 2",
                64, 1024, false);
  if (cc == 80)
    return arch("Ampere", "7 nm (TSMC)", "BF16 and TF32 tensor cores, 2:4 sparsity", 64, 2048,
                true);
  if (cc == 86 || cc == 87)
    return arch("Ampere", "8 nm (Samsung)", "BF16 and TF32 tensor cores, 2:4 sparsity", 128, 1024,
                true);
  if (cc == 89)
    return arch("Ada Lovelace", "4 nm (TSMC 4N)", "adds FP8 tensor cores", 128, 1024, true);
  if (cc == 90)
    return arch("Hopper", "4 nm (TSMC 4N)", "FP8 Transformer Engine, HBM3, thread-block clusters",
                128, 4096, true);
  if (major == 10)
    return arch("Blackwell", "4 nm (TSMC 4NP)",
                "FP4 and FP6 tensor cores, second-generation Transformer Engine", 128, 8192, true);
  if (major == 11)
    return arch("Blackwell", "4 nm (TSMC 4NP)", "FP4 and FP6 tensor cores (Jetson Thor)", 128, 0,
                true);
  if (major == 12)
    return arch("Blackwell", "4 nm (TSMC 4N)", "FP4 and FP6 tensor cores", 128, 1024, true);
  GpuArch unknown = arch("", "", "", 128, 0, major >= 8);
  unknown.name =
      "unknown (compute capability " + std::to_string(major) + "." + std::to_string(minor) + ")";
  unknown.known = false;
  return unknown;
}

GpuPeaks estimate_gpu_peaks(const GpuPeakInputs& in) {
  GpuPeaks p;
  const GpuArch a = gpu_arch(in.cc_major, in.cc_minor);
  if (in.sm_count > 0 && in.boost_mhz > 0) {
    p.fp32_tflops = in.sm_count * a.fp32_lanes_per_sm * 2.0 * in.boost_mhz / 1e6;
    p.fp32_formula = std::to_string(in.sm_count) + " SMs x " + std::to_string(a.fp32_lanes_per_sm) +
                     " FP32 lanes x 2 (FMA) x " + ghz(in.boost_mhz);
    if (!a.known) p.notes.push_back("unknown compute capability: 128 FP32 lanes per SM assumed");
    if (!in.tensor_cores || a.tensor_flops_per_clock_per_sm == 0) {
      p.notes.push_back("no tensor-core estimate: " +
                        std::string(in.tensor_cores
                                        ? "no per-SM tensor rate known for this architecture"
                                        : "this GPU has no tensor cores"));
    } else {
      p.fp16_tensor_tflops =
          in.sm_count * double(a.tensor_flops_per_clock_per_sm) * in.boost_mhz / 1e6;
      p.tensor_formula = std::to_string(in.sm_count) + " SMs x " +
                         std::to_string(a.tensor_flops_per_clock_per_sm) +
                         " dense FP16 tensor FLOP/clock x " + ghz(in.boost_mhz);
      if (a.bf16) {
        p.bf16_tensor_tflops = *p.fp16_tensor_tflops * (in.geforce ? 0.5 : 1.0);
        if (in.geforce) p.tensor_formula += "; BF16 accumulates in FP32, at half rate on GeForce";
      } else {
        p.notes.push_back("no BF16 tensor cores before compute capability 8.0 (Ampere)");
      }
    }
  }
  if (in.bus_width_bits > 0 && in.memory_gbps > 0) {
    p.bandwidth_gbs = in.bus_width_bits * in.memory_gbps / 8.0;
    p.bandwidth_formula = std::to_string(in.bus_width_bits) + "-bit bus x " +
                          text::fixed(in.memory_gbps, 3) + " Gbps per pin / 8";
  }
  return p;
}

VramVerdict vram_verdict(uint64_t bytes) {
  VramVerdict v;
  v.bytes = bytes;
  v.fp16_inference_params = bytes / 2.0;
  v.adam_fp32_training_params = bytes / 16.0;
  const double gib = bytes / kGiB;
  v.vram_class =
      gib < 3.5    ? "very little (under 4 GB): small models only, tiny batches"
      : gib < 7.5  ? "little (4-6 GB): small CNNs and MLPs; the batch size will be the limit"
      : gib < 11.5 ? "entry level (8-10 GB): enough to learn on and to train small models"
      : gib < 19.5 ? "comfortable (12-16 GB): most course-sized models, mid-size fine-tuning"
      : gib < 30   ? "enthusiast (20-24 GB, like the RTX 3090/4090): large models, big batches"
      : gib < 39   ? "high end (32 GB, like the RTX 5090)"
      : gib < 72   ? "workstation class (40-48 GB)"
                   : "data-center class (80 GB and more)";
  return v;
}

GpuExplanation explain_gpu(std::string_view name) {
  GpuExplanation e;
  e.name = parse_gpu_name(name);
  if (e.name.vendor == "NVIDIA" || e.name.vendor.empty()) e.known = find_known_gpu(name, &e.notes);
  if (e.known) {
    const KnownGpu& k = *e.known;
    e.arch = gpu_arch(k.cc_major, k.cc_minor);
    GpuPeakInputs in;
    in.cc_major = k.cc_major;
    in.cc_minor = k.cc_minor;
    in.sm_count = k.sm_count;
    in.boost_mhz = k.boost_mhz;
    in.bus_width_bits = k.bus_width_bits;
    in.memory_gbps = k.memory_gbps;
    in.geforce = text::istarts_with(k.name, "GeForce");
    in.tensor_cores = k.chip != "TU116" && k.chip != "TU117";
    e.peaks = estimate_gpu_peaks(in);
  }
  const int gb = e.name.memory_gb ? *e.name.memory_gb : e.known ? e.known->vram_gb : 0;
  if (gb > 0 && e.name.form != "embedded") e.vram = vram_verdict(static_cast<uint64_t>(gb * kGiB));
  if (e.name.memory_gb && e.known && *e.name.memory_gb != e.known->vram_gb)
    e.notes.push_back("the name says " + std::to_string(*e.name.memory_gb) + " GB; the table's " +
                      e.known->name + " has " + std::to_string(e.known->vram_gb) + " GB");
  return e;
}

std::string format_cuda_version(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

std::string format_cudnn_version(long long v) {
  const long long major = v >= 10000 ? v / 10000 : v / 1000;
  const long long minor = v >= 10000 ? v / 100 % 100 : v / 100 % 10;
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(v % 100);
}

}  // namespace torchlet::hw
