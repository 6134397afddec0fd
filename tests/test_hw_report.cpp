// The hardware report against what Linux itself says: the CPU section against /proc/cpuinfo,
// sysconf and /sys (read here independently), a fake hybrid /sys tree, the GPU section without
// a driver, and the JSON schema. CudaInfo.* compare with the CUDA runtime and nvidia-smi and
// skip where no GPU is present (ctest label: cuda).
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "hw/cpu_uarch.h"
#include "torchlet/hw/cpu.h"
#include "torchlet/hw/gpu.h"
#ifdef TORCHLET_CLI_PATH
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#endif

namespace torchlet::hw {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string first_value(const std::string& cpuinfo, const std::string& key) {
  std::istringstream in(cpuinfo);
  for (std::string line; std::getline(in, line);) {
    const auto colon = line.find(':');
    if (colon == std::string::npos || line.compare(0, key.size(), key) != 0) continue;
    std::string k = line.substr(0, colon);
    k.erase(k.find_last_not_of(" \t") + 1);
    if (k != key) continue;
    const auto start = line.find_first_not_of(" \t", colon + 1);
    return start == std::string::npos ? "" : line.substr(start);
  }
  return "";
}

// Distinct (package, core) pairs and packages, straight from /sys topology.
std::pair<int, int> sys_cores_and_packages() {
  std::set<std::pair<std::string, std::string>> cores;
  std::set<std::string> packages;
  for (const auto& e : fs::directory_iterator("/sys/devices/system/cpu")) {
    const fs::path topo = e.path() / "topology";
    if (!fs::exists(topo / "core_id")) continue;
    const std::string pkg = slurp(topo / "physical_package_id");
    cores.insert({pkg, slurp(topo / "core_id")});
    packages.insert(pkg);
  }
  return {static_cast<int>(cores.size()), static_cast<int>(packages.size())};
}

// Cache sizes of cpu0 from /sys, keyed "L1d", "L1i", "L2", "L3", in bytes.
std::map<std::string, uint64_t> sys_caches() {
  std::map<std::string, uint64_t> out;
  const fs::path dir = "/sys/devices/system/cpu/cpu0/cache";
  if (!fs::exists(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().filename().string().rfind("index", 0) != 0) continue;
    const std::string level = slurp(e.path() / "level"), type = slurp(e.path() / "type");
    std::string key = level.substr(0, 1);
    key.insert(key.begin(), 'L');
    if (type.rfind("Data", 0) == 0) key += 'd';
    if (type.rfind("Instruction", 0) == 0) key += 'i';
    out[key] = std::stoull(slurp(e.path() / "size")) * 1024;  // "32K"
  }
  return out;
}

TEST(HwCpuReport, AgreesWithProcAndSys) {
  const CpuReport r = cpu_report();
  const std::string cpuinfo = slurp("/proc/cpuinfo");
  const std::string model = first_value(cpuinfo, "model name");
  if (!model.empty()) {
    EXPECT_EQ(r.model_name, model);
  }
  EXPECT_FALSE(r.model_name.empty());
  EXPECT_EQ(r.logical_threads, sysconf(_SC_NPROCESSORS_ONLN));
  const auto [cores, packages] = sys_cores_and_packages();
  if (cores > 0) {
    EXPECT_EQ(r.physical_cores, cores);
    EXPECT_EQ(r.sockets, packages);
  }
  EXPECT_EQ(r.name.input, r.model_name);
  int kind_cores = 0;
  for (const auto& k : r.core_kinds) kind_cores += k.cores;
  EXPECT_EQ(kind_cores, r.physical_cores);
}

TEST(HwCpuReport, CachesAndFlagsAgreeWithLinux) {
  const CpuReport r = cpu_report();
  const auto caches = sys_caches();
  if (caches.count("L1d")) {
    EXPECT_EQ(r.l1d.size_bytes, caches.at("L1d"));
  }
  if (caches.count("L2")) {
    EXPECT_EQ(r.l2.size_bytes, caches.at("L2"));
  }
  if (caches.count("L3")) {
    EXPECT_EQ(r.l3.size_bytes, caches.at("L3"));
  }
  const LinuxCpuFacts f = read_linux_cpu_facts();
  for (const auto& [isa, flag] : std::map<std::string, std::string>{{"AVX2", "avx2"},
                                                                    {"AVX-512F", "avx512f"},
                                                                    {"FMA3", "fma"},
                                                                    {"AMX-TILE", "amx_tile"},
                                                                    {"NEON", "asimd"}}) {
    const auto it =
        std::find_if(r.isa.begin(), r.isa.end(), [&](const IsaFlag& i) { return i.name == isa; });
    if (it != r.isa.end()) {
      EXPECT_EQ(it->present, f.flags.count(flag) > 0) << isa;
    }
  }
}

TEST(HwCpuReport, FrequencyComesFromSysWhenThere) {
  const CpuReport r = cpu_report();
  const bool cpufreq = fs::exists("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
  EXPECT_EQ(r.max_mhz.has_value(), cpufreq);
  if (cpufreq) {
    EXPECT_GE(*r.max_mhz,
              std::stod(slurp("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq")) / 1000.0);
  }
  if (r.peak_fp32) {
    EXPECT_GT(r.peak_fp32->gflops, 0.0);
    EXPECT_NE(r.peak_fp32->formula.find("FLOP/cycle"), std::string::npos);
  }
}

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

// A 12th-generation hybrid: one P-core with two threads (cpus 0-1) and two E-cores (2, 3).
TEST(HwCpuReport, ReadsAFakeHybridSysTree) {
  const fs::path root = fs::path(::testing::TempDir()) / "torchlet_fake_hybrid";
  fs::remove_all(root);
  write(root / "proc/cpuinfo",
        "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 151\n"
        "model name\t: 12th Gen Intel(R) Core(TM) i7-12700K\nstepping\t: 2\ncpu MHz\t\t: 3600.000\n"
        "flags\t\t: fpu sse4_2 avx avx2 fma avx_vnni\n\nprocessor\t: 1\nmodel name\t: ignored\n");
  const fs::path cpu = root / "sys/devices/system/cpu";
  write(cpu / "online", "0-3\n");
  const int core_ids[] = {0, 0, 8, 9};
  const int max_khz[] = {5000000, 5000000, 3800000, 3800000};
  for (int i = 0; i < 4; ++i) {
    const fs::path dir = cpu / ("cpu" + std::to_string(i));
    write(dir / "topology/physical_package_id", "0\n");
    write(dir / "topology/core_id", std::to_string(core_ids[i]) + "\n");
    write(dir / "cpufreq/cpuinfo_max_freq", std::to_string(max_khz[i]) + "\n");
  }
  write(root / "sys/devices/cpu_core/cpus", "0-1\n");
  write(root / "sys/devices/cpu_atom/cpus", "2-3\n");

  const LinuxCpuFacts f = read_linux_cpu_facts(root.string());
  EXPECT_EQ(f.model_name, "12th Gen Intel(R) Core(TM) i7-12700K");
  EXPECT_EQ(f.vendor_id, "GenuineIntel");
  EXPECT_EQ(f.family, 6);
  EXPECT_EQ(f.model, 151);
  EXPECT_DOUBLE_EQ(f.cpu_mhz, 3600.0);
  EXPECT_TRUE(f.flags.count("avx_vnni"));
  EXPECT_EQ(f.online_cpus, 4);
  EXPECT_EQ(f.physical_cores(), 3);
  EXPECT_EQ(f.performance_cpus, (std::vector<int>{0, 1}));
  EXPECT_EQ(f.efficiency_cpus, (std::vector<int>{2, 3}));
  EXPECT_DOUBLE_EQ(f.max_mhz.at(0), 5000.0);
  EXPECT_DOUBLE_EQ(f.max_mhz.at(3), 3800.0);

  const auto gen = x86_generation(f.vendor_id, f.family, f.model, 2);
  ASSERT_TRUE(gen.has_value());
  EXPECT_EQ(gen->codename, "Alder Lake");
  EXPECT_EQ(gen->uarch, "Golden Cove + Gracemont");
  EXPECT_EQ(fp32_flops_per_cycle("Golden Cove", "Alder Lake", f.flags, nullptr), 32);
  EXPECT_EQ(fp32_flops_per_cycle("Gracemont", "Alder Lake", f.flags, nullptr), 16);
  fs::remove_all(root);
}

TEST(HwCpuReport, FamilyModelTableKnowsThisVmAndNewerParts) {
  EXPECT_EQ(x86_generation("AuthenticAMD", 25, 1, 1)->codename, "Milan");
  EXPECT_EQ(x86_generation("AuthenticAMD", 25, 0x61, 2)->uarch, "Zen 4");
  EXPECT_EQ(x86_generation("GenuineIntel", 6, 0x55, 7)->codename, "Cascade Lake");
  EXPECT_EQ(x86_generation("GenuineIntel", 6, 0x8F, 8)->codename, "Sapphire Rapids");
  EXPECT_FALSE(x86_generation("GenuineIntel", 6, 0x01, 0).has_value());
  EXPECT_EQ(cpuinfo_uarch_name(0x0020010B), "Zen 3");
  EXPECT_EQ(fp32_flops_per_cycle("Zen 3", "Milan", {"avx2", "fma"}, nullptr), 32);
  EXPECT_EQ(fp32_flops_per_cycle("Golden Cove", "Sapphire Rapids", {"avx512f"}, nullptr), 64);
}

TEST(HwGpuReport, WithoutADriverSaysWhyAndStillAnswers) {
  GpuLibraryNames libs;
  libs.driver = {"libtorchlet-no-such-driver.so.1"};
  libs.nvml = {"libtorchlet-no-such-nvml.so.1"};
  const GpuReport r = gpu_report(libs);
  EXPECT_FALSE(r.cuda_available);
  EXPECT_FALSE(r.driver.found);
  EXPECT_EQ(r.device_count, 0);
  EXPECT_EQ(r.current_device, -1);
  EXPECT_TRUE(r.devices.empty());
  ASSERT_FALSE(r.reasons.empty());
  EXPECT_EQ(r.reasons[0].rfind(
                "no NVIDIA driver found (libtorchlet-no-such-driver.so.1 could not be loaded: ", 0),
            0u)
      << r.reasons[0];
  EXPECT_FALSE(r.cuda_driver_version.has_value());
  EXPECT_TRUE(r.driver_version.empty() || r.pci_nvidia_gpus > 0);
  if (!r.built_with_cuda) {
    EXPECT_NE(r.reasons.back().find("CPU-only build"), std::string::npos);
  }
}

TEST(HwGpuReport, ThisMachineAnswersConsistently) {
  const GpuReport r = gpu_report();
  EXPECT_EQ(r.device_count, static_cast<int>(r.devices.size()));
  EXPECT_EQ(r.cuda_available, r.reasons.empty());
  if (!r.driver.found) {
    ASSERT_FALSE(r.reasons.empty());
    EXPECT_EQ(r.reasons[0].rfind("no NVIDIA driver found (libcuda.so.1 could not be loaded", 0),
              0u);
  }
  if (r.cudnn_version) {
    EXPECT_TRUE(r.cudnn.found);
  }
}

#ifdef TORCHLET_FAKE_CUDA_PATH
// Sets an environment variable for one test (the fake driver reads it on each call).
struct ScopedEnv {
  const char* name;
  ScopedEnv(const char* n, const char* value) : name(n) { setenv(n, value, 1); }
  ~ScopedEnv() { unsetenv(name); }
};

GpuLibraryNames fake_libraries() {
  GpuLibraryNames libs;
  libs.driver = libs.nvml = libs.runtime = {TORCHLET_FAKE_CUDA_PATH};
  return libs;
}

TEST(HwGpuReport, ReadsARecordedH200ThroughTheDriverApiAndNvml) {
  const GpuReport r = gpu_report(fake_libraries());
  EXPECT_TRUE(r.driver.found);
  EXPECT_EQ(r.driver_version, "580.126.20");
  EXPECT_EQ(r.cuda_driver_version, 13000);
  ASSERT_EQ(r.device_count, 1);
  EXPECT_EQ(r.current_device, 0);
  const GpuDevice& d = r.devices[0];
  EXPECT_EQ(d.name, "NVIDIA H200");
  EXPECT_EQ(d.pci_bus_id, "00000000:18:00.0");
  EXPECT_EQ(d.total_bytes, 143771ull << 20);  // 64-bit all the way: no 32-bit wrap
  EXPECT_EQ(d.free_bytes, 143000ull << 20);   // NVML v2 struct version accepted
  EXPECT_EQ(d.cc_major, 9);
  EXPECT_EQ(d.arch.name, "Hopper");
  EXPECT_EQ(d.sm_count, 132);
  EXPECT_EQ(d.sm_clock_mhz, 1980);
  EXPECT_EQ(d.memory_clock_mhz, 3125);
  EXPECT_EQ(d.bus_width_bits, 6144);
  EXPECT_EQ(d.l2_bytes, 60 << 20);
  EXPECT_EQ(d.pcie_gen_max, 5);
  EXPECT_EQ(d.pcie_width_max, 16);
  EXPECT_EQ(d.pcie_gen_current, 1);
  EXPECT_NEAR(*d.peaks.fp32_tflops, 66.9, 0.1);
  EXPECT_NEAR(*d.peaks.bandwidth_gbs, 4800.0, 1.0);
  EXPECT_EQ(d.peaks.bf16_tensor_tflops, d.peaks.fp16_tensor_tflops);  // not a GeForce
  EXPECT_EQ(d.name_info.architecture, "Hopper");
  EXPECT_NEAR(d.vram.adam_fp32_training_params, (143771ull << 20) / 16.0, 1.0);
  EXPECT_EQ(r.cuda_available, r.built_with_cuda && r.reasons.empty());
}

TEST(HwGpuReport, NamesTheDriversErrors) {
  const ScopedEnv no_device("TORCHLET_FAKE_CUINIT", "100");
  const GpuReport r = gpu_report(fake_libraries());
  ASSERT_FALSE(r.reasons.empty());
  EXPECT_EQ(r.reasons[0],
            "the NVIDIA driver is installed but found no CUDA device (cuInit: "
            "CUDA_ERROR_NO_DEVICE (error 100))");
  EXPECT_EQ(r.device_count, 0);
}

TEST(HwGpuReport, SaysWhenTheDriverIsOlderThanTheRuntime) {
  const ScopedEnv old_driver("TORCHLET_FAKE_CUDA_VERSION", "12020");
  const GpuReport r = gpu_report(fake_libraries());
  EXPECT_EQ(r.cuda_runtime_version, 13000);
  ASSERT_FALSE(r.reasons.empty());
  EXPECT_EQ(r.reasons[0].rfind("the NVIDIA driver is too old: it supports CUDA up to 12.2, but the "
                               "CUDA runtime found is 13.0 (",
                               0),
            0u)
      << r.reasons[0];
}
#endif

#ifdef TORCHLET_CLI_PATH
// The documented fields (docs/info.md) with their JSON types.
TEST(HwJson, ReportHasTheDocumentedFieldsAndTypes) {
  const auto run = testing::run_cli("info --json", testing::scratch_dir());
  ASSERT_EQ(run.status, 0) << run.err;
  const auto j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j.at("schema_version"), 1);
  EXPECT_TRUE(j.at("torchlet_version").is_string());
  const auto& cpu = j.at("cpu");
  for (const char* key : {"architecture", "model_name"}) {
    EXPECT_TRUE(cpu.at(key).is_string()) << key;
  }
  for (const char* key : {"vendor", "normalized_name", "microarchitecture", "codename", "process"})
    EXPECT_TRUE(cpu.at(key).is_string() || cpu.at(key).is_null()) << key;
  for (const char* key : {"sockets", "physical_cores", "logical_threads"})
    EXPECT_TRUE(cpu.at(key).is_number_integer()) << key;
  EXPECT_EQ(cpu.at("logical_threads"), sysconf(_SC_NPROCESSORS_ONLN));
  EXPECT_TRUE(cpu.at("hybrid").is_boolean());
  EXPECT_TRUE(cpu.at("core_kinds").is_array());
  for (const char* key : {"base", "max", "current"})
    EXPECT_TRUE(cpu.at("frequency_mhz").at(key).is_number() ||
                cpu.at("frequency_mhz").at(key).is_null());
  for (const char* key : {"l1d", "l1i", "l2", "l3"}) {
    EXPECT_TRUE(cpu.at("caches").contains(key));
  }
  EXPECT_TRUE(cpu.at("isa").is_object());
  EXPECT_TRUE(cpu.at("peak_fp32_estimate").is_object() || cpu.at("peak_fp32_estimate").is_null());
  EXPECT_TRUE(cpu.at("name_info").at("unrecognized").is_array());
  const auto& gpu = j.at("gpu");
  for (const char* key : {"built_with_cuda", "cuda_available"}) {
    EXPECT_TRUE(gpu.at(key).is_boolean()) << key;
  }
  EXPECT_TRUE(gpu.at("unavailable_reasons").is_array());
  for (const char* key :
       {"driver_library", "nvml_library", "cuda_runtime_library", "cudnn_library"})
    EXPECT_TRUE(gpu.at(key).at("found").is_boolean()) << key;
  for (const char* key :
       {"driver_version", "cuda_driver_version", "cuda_runtime_version", "cudnn_version"})
    EXPECT_TRUE(gpu.at(key).is_string() || gpu.at(key).is_null()) << key;
  EXPECT_TRUE(gpu.at("device_count").is_number_integer());
  EXPECT_TRUE(gpu.at("current_device").is_number_integer() || gpu.at("current_device").is_null());
  EXPECT_EQ(gpu.at("devices").size(), gpu.at("device_count").get<std::size_t>());
  for (const auto& d : gpu.at("devices")) {
    for (const char* key : {"name", "pci_bus_id", "compute_capability"}) {
      EXPECT_TRUE(d.at(key).is_string()) << key;
    }
    for (const char* key : {"index", "vram_total_bytes", "sm_count"}) {
      EXPECT_TRUE(d.at(key).is_number_integer()) << key;
    }
    EXPECT_TRUE(d.at("estimates").is_object());
    EXPECT_TRUE(d.at("pcie").is_object());
  }
}

TEST(HwJson, ExplainEntriesHaveOneShape) {
  const auto run = testing::run_cli("info --json --explain 'RTX 3080 Ti' 'AMD EPYC 7763' banana",
                                    testing::scratch_dir());
  ASSERT_EQ(run.status, 0) << run.err;
  const auto j = nlohmann::json::parse(run.out);
  EXPECT_FALSE(j.contains("cpu"));
  ASSERT_EQ(j.at("explain").size(), 3u);
  for (const auto& e : j.at("explain"))
    for (const char* key : {"input", "kind", "name_info", "known_specs", "architecture",
                            "estimates", "vram_verdict", "unrecognized", "notes"})
      EXPECT_TRUE(e.contains(key)) << key;
  EXPECT_EQ(j["explain"][0]["kind"], "gpu");
  EXPECT_EQ(j["explain"][1]["kind"], "cpu");
  EXPECT_EQ(j["explain"][2]["kind"], "unknown");
  EXPECT_TRUE(j["explain"][0]["estimates"]["fp32_tflops"].is_number());
}
#endif

// --- With a GPU (ctest label cuda): torchlet's answer against CUDA's own. ---------------------

struct CudaRuntime {
  void* lib = dlopen("libcudart.so.13", RTLD_NOW | RTLD_NODELETE);
  CudaRuntime() {
    for (const char* name : {"libcudart.so.12", "libcudart.so"})
      if (!lib) lib = dlopen(name, RTLD_NOW | RTLD_NODELETE);
  }
  template <typename F>
  F get(const char* symbol) const {
    return lib ? reinterpret_cast<F>(dlsym(lib, symbol)) : nullptr;
  }
  int device_count() const {
    const auto count = get<int (*)(int*)>("cudaGetDeviceCount");
    int n = 0;
    return count && count(&n) == 0 ? n : 0;
  }
};

TEST(CudaInfo, DevicesMatchTheCudaRuntime) {
  const CudaRuntime rt;
  const int count = rt.device_count();
  if (count == 0) GTEST_SKIP() << "no CUDA runtime or no GPU";
  const GpuReport r = gpu_report();
  ASSERT_EQ(r.device_count, count);
  EXPECT_TRUE(r.driver.found);
  EXPECT_TRUE(r.cuda_driver_version.has_value());
  const auto attribute = rt.get<int (*)(int*, int, int)>("cudaDeviceGetAttribute");
  auto properties = rt.get<int (*)(void*, int)>("cudaGetDeviceProperties_v2");
  if (!properties) properties = rt.get<int (*)(void*, int)>("cudaGetDeviceProperties");
  const auto set_device = rt.get<int (*)(int)>("cudaSetDevice");
  const auto mem_info = rt.get<int (*)(std::size_t*, std::size_t*)>("cudaMemGetInfo");
  ASSERT_TRUE(attribute && properties && set_device && mem_info);
  for (int i = 0; i < count; ++i) {
    SCOPED_TRACE("device " + std::to_string(i));
    const GpuDevice& d = r.devices[static_cast<std::size_t>(i)];
    std::vector<char> props(16384, 0);  // cudaDeviceProp starts with char name[256]
    ASSERT_EQ(properties(props.data(), i), 0);
    EXPECT_EQ(d.name, std::string(props.data()));
    int major = 0, minor = 0, sms = 0;
    attribute(&major, 75, i);  // cudaDevAttrComputeCapabilityMajor
    attribute(&minor, 76, i);  // cudaDevAttrComputeCapabilityMinor
    attribute(&sms, 16, i);    // cudaDevAttrMultiProcessorCount
    EXPECT_EQ(d.cc_major, major);
    EXPECT_EQ(d.cc_minor, minor);
    EXPECT_EQ(d.sm_count, sms);
    std::size_t free = 0, total = 0;
    ASSERT_EQ(set_device(i), 0);
    ASSERT_EQ(mem_info(&free, &total), 0);
    EXPECT_NEAR(static_cast<double>(d.total_bytes), static_cast<double>(total), total * 0.01);
    EXPECT_TRUE(d.arch.known) << d.arch.name;
    EXPECT_TRUE(d.peaks.fp32_tflops.has_value());
  }
}

TEST(CudaInfo, DevicesMatchNvidiaSmi) {
  if (CudaRuntime().device_count() == 0) GTEST_SKIP() << "no CUDA runtime or no GPU";
  FILE* pipe = popen(
      "nvidia-smi --query-gpu=pci.bus_id,name,memory.total,compute_cap "
      "--format=csv,noheader,nounits 2>/dev/null",
      "r");
  if (!pipe) GTEST_SKIP() << "nvidia-smi cannot be run";
  std::string out;
  char buf[4096];
  for (std::size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
  if (pclose(pipe) != 0 || out.empty()) GTEST_SKIP() << "nvidia-smi failed";
  const GpuReport r = gpu_report();
  std::istringstream lines(out);
  int matched = 0;
  for (std::string line; std::getline(lines, line);) {
    std::vector<std::string> f;
    std::istringstream fields(line);
    for (std::string s; std::getline(fields, s, ',');)
      f.push_back(s.substr(s.find_first_not_of(' ')));
    ASSERT_EQ(f.size(), 4u) << line;
    for (const GpuDevice& d : r.devices) {
      if (d.pci_bus_id != f[0]) continue;
      ++matched;
      EXPECT_EQ(d.name, f[1]);
      EXPECT_NEAR(d.total_bytes / 1048576.0, std::stod(f[2]), std::stod(f[2]) * 0.01);
      EXPECT_EQ(std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor), f[3]);
      EXPECT_TRUE(d.free_bytes.has_value());
      EXPECT_TRUE(d.pcie_gen_max.has_value());
    }
  }
  EXPECT_EQ(matched, r.device_count);  // CUDA_VISIBLE_DEVICES unset in the test environment
  EXPECT_FALSE(r.driver_version.empty());
}

}  // namespace
}  // namespace torchlet::hw
