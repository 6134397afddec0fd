// What torchlet knows about NVIDIA GPUs without one being present: the table of known cards
// (data/gpus.csv, compiled in), the architecture behind each compute capability, estimated
// peak throughput and bandwidth, and the course's VRAM verdict. All estimates are labelled as
// such and carry the formula that produced them.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "torchlet/hw/names.h"

namespace torchlet::hw {

// One row of data/gpus.csv.
struct KnownGpu {
  std::string name;                  // "GeForce RTX 3080 Ti" (without the "NVIDIA " prefix)
  std::vector<std::string> aliases;  // other spellings drivers report ("A100-SXM4-80GB")
  std::string form;                  // desktop, laptop, datacenter, workstation
  int year = 0;
  std::string chip;                // "GA102"
  int cc_major = 0, cc_minor = 0;  // compute capability
  int sm_count = 0;
  int boost_mhz = 0;
  int vram_gb = 0;
  std::string memory_type;  // "GDDR6X", "HBM3"
  int bus_width_bits = 0;
  double memory_gbps = 0.0;  // per-pin data rate
  std::string source;        // keys explained in data/gpus.md
  std::string notes;

  double bandwidth_gbs() const { return bus_width_bits * memory_gbps / 8.0; }
};

// Every row of the table, in file order. Parsed once, on first use.
std::span<const KnownGpu> known_gpus();

// The table row a name refers to ("RTX 3080 Ti", "NVIDIA A100-SXM4-80GB", "Tesla T4"), or
// nullptr. Word order, case, "NVIDIA"/"GeForce"/"Tesla" and memory sizes do not matter; a
// name that fits rows of different architectures ("RTX 6000") matches none, and `notes`
// (when given) says why or which variant was picked.
const KnownGpu* find_known_gpu(std::string_view name, std::vector<std::string>* notes = nullptr);

// What a compute capability means (CUDA Programming Guide throughput table, helper_cuda.h,
// NVIDIA whitepapers; see ../shared/reference/hwinfo.md section 5).
struct GpuArch {
  std::string name;      // "Ampere"
  std::string process;   // "8 nm (Samsung)"
  std::string features;  // what it added for deep learning
  int fp32_lanes_per_sm = 128;
  int tensor_flops_per_clock_per_sm = 0;  // dense FP16 tensor FLOPs per clock per SM; 0: none
  bool bf16 = false;                      // BF16 tensor cores (CC >= 8.0)
  bool known = true;                      // false: an unknown CC, lanes assumed 128
};
GpuArch gpu_arch(int cc_major, int cc_minor);

// Inputs to the peak estimates; clocks in MHz, data rate per pin in Gbps.
struct GpuPeakInputs {
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  double boost_mhz = 0.0;
  int bus_width_bits = 0;
  double memory_gbps = 0.0;
  bool geforce = false;      // GeForce runs FP32-accumulate tensor math at half rate
  bool tensor_cores = true;  // false for GTX 16 (TU116/TU117), which has none
};

// Estimated peaks. A value is absent when an input is missing; each formula is spelled out.
struct GpuPeaks {
  std::optional<double> fp32_tflops;
  std::optional<double> fp16_tensor_tflops;  // dense, FP16 accumulate
  std::optional<double> bf16_tensor_tflops;  // dense, FP32 accumulate
  std::optional<double> bandwidth_gbs;
  std::string fp32_formula, tensor_formula, bandwidth_formula;
  std::vector<std::string> notes;
};
GpuPeaks estimate_gpu_peaks(const GpuPeakInputs& in);

// The course's point that VRAM matters most, made concrete: the largest model whose
// parameters alone fit (2 bytes each for fp16 inference; 16 for Adam in fp32: weights 4,
// gradients 4, two Adam moments 8). Activations, batch and framework overhead come on top.
struct VramVerdict {
  uint64_t bytes = 0;
  double fp16_inference_params = 0.0;
  double adam_fp32_training_params = 0.0;
  std::string vram_class;  // "comfortable (12-16 GB): ..."
};
VramVerdict vram_verdict(uint64_t bytes);

// A GPU name explained: the parse, the table row it matches, estimates and the verdict.
struct GpuExplanation {
  GpuName name;
  const KnownGpu* known = nullptr;
  std::optional<GpuArch> arch;      // from the table row's compute capability
  std::optional<GpuPeaks> peaks;    // from the table row
  std::optional<VramVerdict> vram;  // from the row, or from the size in the name
  std::vector<std::string> notes;   // how the row was picked, or why none was
};
GpuExplanation explain_gpu(std::string_view name);

// "13.0" from 13000 (CUDA's 1000 * major + 10 * minor encoding).
std::string format_cuda_version(int version);
// "9.19.0" from 91900, "8.9.7" from 8907 (cuDNN changed its encoding at 9).
std::string format_cudnn_version(long long version);

}  // namespace torchlet::hw
