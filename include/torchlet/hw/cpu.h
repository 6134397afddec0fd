// The CPU report of `torchlet info`: what libcpuinfo (the library PyTorch uses) says, completed
// from /proc/cpuinfo and /sys where it falls short (frequencies, hybrid P/E cores, newer
// instruction sets, the generation of CPUs newer than the library). Linux only.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "torchlet/hw/names.h"

namespace torchlet::hw {

// What /proc/cpuinfo and /sys/devices say, read under `root` ("" for the real system), so tests
// can point it at a fake tree.
struct LinuxCpuFacts {
  std::string model_name;  // first "model name" (x86) or "Processor"/"model name" (Arm)
  std::string vendor_id;   // "GenuineIntel", "AuthenticAMD"
  int family = -1, model = -1, stepping = -1;
  std::set<std::string> flags;              // "flags" (x86) or "Features" (Arm), kernel spelling
  double cpu_mhz = 0.0;                     // first "cpu MHz": a current clock, 0 when absent
  int online_cpus = 0;                      // /sys/devices/system/cpu/online
  std::map<int, int> package_of, core_of;   // cpu -> physical_package_id / core_id (topology)
  std::map<int, double> max_mhz, base_mhz;  // cpu -> cpufreq cpuinfo_max_freq / base_frequency
  std::vector<int> performance_cpus, efficiency_cpus;  // /sys/devices/cpu_core|cpu_atom/cpus

  int physical_cores() const;  // distinct (package, core) pairs; 0 when /sys has no topology
};
LinuxCpuFacts read_linux_cpu_facts(const std::string& root = "");

struct CacheLevel {
  uint64_t size_bytes = 0;  // one instance
  uint32_t instances = 0;
};

// One kind of core: all cores on most CPUs; P-cores and E-cores on hybrid ones.
struct CpuCoreKind {
  std::string kind;  // "all", "performance", "efficiency"
  int cores = 0;
  int threads = 0;
  std::optional<double> max_mhz;
  std::string microarchitecture;
  int fp32_flops_per_cycle = 0;  // per core, see cpu_report's peak estimate
};

struct IsaFlag {
  std::string name;  // "AVX2", "AVX-512F", "AMX-BF16", "NEON", ...
  bool present = false;
};

struct CpuPeak {
  double gflops = 0.0;
  std::string formula;  // "2 cores x 2.445 GHz x 32 FLOP/cycle"
  std::vector<std::string> assumptions;
};

struct CpuReport {
  std::string architecture;       // "x86_64", "aarch64"
  std::string vendor;             // "AMD", "Intel", "Arm", ...
  std::string model_name;         // as the OS reports it (what lscpu prints)
  std::string normalized_name;    // libcpuinfo's package name ("AMD EPYC", "Intel Core i7-4770")
  std::string microarchitecture;  // "Zen 3"
  std::string codename;           // "Milan"
  std::string process;            // "7 nm"
  std::string uarch_source;       // "libcpuinfo", "family/model table", "model name", ""
  int family = -1, model = -1, stepping = -1;
  int sockets = 0;
  int physical_cores = 0;
  int logical_threads = 0;
  bool hybrid = false;
  std::vector<CpuCoreKind> core_kinds;
  std::optional<double> base_mhz, max_mhz, current_mhz;
  std::string frequency_source;
  CacheLevel l1d, l1i, l2, l3;
  std::vector<IsaFlag> isa;
  std::optional<CpuPeak> peak_fp32;
  bool virtualized = false;  // the "hypervisor" flag
  CpuName name;              // parse_cpu_name(model_name)
  std::vector<std::string> notes;
};

// Reads this machine. Never throws: what cannot be read is left empty and noted.
CpuReport cpu_report();

}  // namespace torchlet::hw
