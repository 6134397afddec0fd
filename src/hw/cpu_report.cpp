// cpu_report: libcpuinfo for the name, counts, caches and the instruction sets it knows;
// /proc and /sys (cpu_linux.cpp) for frequencies, hybrid P/E cores and newer extensions; the
// family/model table (cpu_uarch.cpp) for CPUs newer than Debian's 2022 libcpuinfo.
#include <cpuinfo.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>

#include "hw/cpu_uarch.h"
#include "hw/text.h"
#include "torchlet/hw/cpu.h"

namespace torchlet::hw {
namespace {

std::string vendor_name(cpuinfo_vendor v, const std::string& vendor_id) {
  switch (v) {
    case cpuinfo_vendor_intel: return "Intel";
    case cpuinfo_vendor_amd: return "AMD";
    case cpuinfo_vendor_arm: return "Arm";
    case cpuinfo_vendor_qualcomm: return "Qualcomm";
    case cpuinfo_vendor_apple: return "Apple";
    case cpuinfo_vendor_nvidia: return "NVIDIA";
    case cpuinfo_vendor_hygon: return "Hygon";
    default: break;
  }
  if (vendor_id == "GenuineIntel") return "Intel";
  if (vendor_id == "AuthenticAMD") return "AMD";
  return vendor_id;
}

CacheLevel cache(uint32_t count, const cpuinfo_cache* first) {
  return first ? CacheLevel{first->size, count} : CacheLevel{};
}

// DL-relevant extensions: libcpuinfo's answer, or the kernel's flag for the ones the 2022
// library cannot report (AVX-VNNI, AMX, AVX512-FP16).
std::vector<IsaFlag> isa_flags(const std::set<std::string>& k, bool x86) {
  auto f = [&](const char* name, bool lib, const char* kernel) {
    return IsaFlag{name, lib || (kernel && k.count(kernel))};
  };
  if (x86) {
    return {f("SSE4.2", cpuinfo_has_x86_sse4_2(), "sse4_2"),
            f("AVX", cpuinfo_has_x86_avx(), "avx"),
            f("AVX2", cpuinfo_has_x86_avx2(), "avx2"),
            f("FMA3", cpuinfo_has_x86_fma3(), "fma"),
            f("F16C", cpuinfo_has_x86_f16c(), "f16c"),
            f("AVX-512F", cpuinfo_has_x86_avx512f(), "avx512f"),
            f("AVX-512BW", cpuinfo_has_x86_avx512bw(), "avx512bw"),
            f("AVX-512VL", cpuinfo_has_x86_avx512vl(), "avx512vl"),
            f("AVX-512DQ", cpuinfo_has_x86_avx512dq(), "avx512dq"),
            f("AVX-512VNNI", cpuinfo_has_x86_avx512vnni(), "avx512_vnni"),
            f("AVX-512BF16", cpuinfo_has_x86_avx512bf16(), "avx512_bf16"),
            f("AVX-512FP16", false, "avx512_fp16"),
            f("AVX-VNNI", false, "avx_vnni"),
            f("AMX-TILE", false, "amx_tile"),
            f("AMX-BF16", false, "amx_bf16"),
            f("AMX-INT8", false, "amx_int8"),
            f("AMX-FP16", false, "amx_fp16")};
  }
  return {f("NEON", cpuinfo_has_arm_neon(), "asimd"),
          f("NEON dot product", cpuinfo_has_arm_neon_dot(), "asimddp"),
          f("FP16 arithmetic", cpuinfo_has_arm_fp16_arith(), "asimdhp"),
          f("BF16", cpuinfo_has_arm_bf16(), "bf16"),
          f("I8MM", false, "i8mm"),
          f("SVE", cpuinfo_has_arm_sve(), "sve"),
          f("SVE2", cpuinfo_has_arm_sve2(), "sve2"),
          f("SME", false, "sme")};
}

std::optional<double> max_over(const std::map<int, double>& mhz, const std::vector<int>& cpus) {
  std::optional<double> best;
  for (const auto& [cpu, value] : mhz)
    if (cpus.empty() || std::find(cpus.begin(), cpus.end(), cpu) != cpus.end())
      best = std::max(best.value_or(0.0), value);
  return best;
}

CpuCoreKind core_kind(const std::string& kind, const std::vector<int>& cpus, const LinuxCpuFacts& f,
                      const std::string& uarch) {
  CpuCoreKind k;
  k.kind = kind;
  k.threads = static_cast<int>(cpus.size());
  std::set<std::pair<int, int>> cores;
  for (int cpu : cpus)
    if (f.core_of.count(cpu))
      cores.insert({f.package_of.count(cpu) ? f.package_of.at(cpu) : 0, f.core_of.at(cpu)});
  k.cores = static_cast<int>(cores.size());
  k.max_mhz = max_over(f.max_mhz, cpus);
  k.microarchitecture = uarch;
  return k;
}

// The P/E split from /sys/devices/cpu_core and cpu_atom; one kind on other CPUs.
void fill_core_kinds(CpuReport& r, const LinuxCpuFacts& f) {
  if (!f.performance_cpus.empty() && !f.efficiency_cpus.empty()) {
    r.hybrid = true;
    const std::vector<std::string> parts = text::split(r.microarchitecture, "+");
    const std::string p_uarch = parts.empty() ? "" : text::trim(parts[0]);
    const std::string e_uarch = parts.size() > 1 ? text::trim(parts[1]) : "";
    r.core_kinds.push_back(core_kind("performance", f.performance_cpus, f, p_uarch));
    r.core_kinds.push_back(core_kind("efficiency", f.efficiency_cpus, f, e_uarch));
    return;
  }
  CpuCoreKind all;
  all.kind = "all";
  all.cores = r.physical_cores;
  all.threads = r.logical_threads;
  all.max_mhz = r.max_mhz;
  all.microarchitecture = r.microarchitecture;
  r.core_kinds.push_back(all);
}

void fill_peak(CpuReport& r, const LinuxCpuFacts& f) {
  CpuPeak peak;
  std::vector<std::string> terms;
  const std::optional<double> fallback_mhz = r.max_mhz    ? r.max_mhz
                                             : r.base_mhz ? r.base_mhz
                                                          : r.current_mhz;
  for (CpuCoreKind& k : r.core_kinds) {
    std::string why;
    k.fp32_flops_per_cycle = fp32_flops_per_cycle(k.microarchitecture, r.codename, f.flags, &why);
    const std::optional<double> mhz = k.max_mhz ? k.max_mhz : fallback_mhz;
    if (k.fp32_flops_per_cycle == 0 || !mhz || k.cores == 0) {
      r.notes.push_back("no FP32 peak estimate: " +
                        std::string(!mhz ? "no clock frequency is known" : why));
      return;
    }
    peak.gflops += k.cores * (*mhz / 1000.0) * k.fp32_flops_per_cycle;
    terms.push_back(std::to_string(k.cores) + (k.kind == "all" ? "" : " " + k.kind) + " cores x " +
                    text::fixed(*mhz / 1000.0, 3) + " GHz x " +
                    std::to_string(k.fp32_flops_per_cycle) + " FLOP/cycle");
    peak.assumptions.push_back((k.kind == "all" ? std::string() : k.kind + " cores: ") + why);
  }
  peak.formula = text::join(terms, " + ");
  if (!r.max_mhz)
    peak.assumptions.push_back(std::string("clock: the ") + (r.base_mhz ? "base" : "current") +
                               " clock, as no maximum is exposed: the real peak is higher");
  r.peak_fp32 = peak;
}

}  // namespace

CpuReport cpu_report() {
  CpuReport r;
  utsname u{};
  if (uname(&u) == 0) r.architecture = u.machine;
  const bool x86 = r.architecture == "x86_64" || r.architecture.starts_with("i");
  const LinuxCpuFacts f = read_linux_cpu_facts();
  r.family = f.family, r.model = f.model, r.stepping = f.stepping;
  r.model_name = f.model_name;
  r.virtualized = f.flags.count("hypervisor") > 0;
  if (cpuinfo_initialize()) {
    r.sockets = static_cast<int>(cpuinfo_get_packages_count());
    r.physical_cores = static_cast<int>(cpuinfo_get_cores_count());
    r.logical_threads = static_cast<int>(cpuinfo_get_processors_count());
    if (const cpuinfo_package* p = cpuinfo_get_package(0)) r.normalized_name = p->name;
    if (const cpuinfo_core* c = cpuinfo_get_core(0)) r.vendor = vendor_name(c->vendor, f.vendor_id);
    if (cpuinfo_get_uarchs_count() > 0)
      r.microarchitecture = cpuinfo_uarch_name(cpuinfo_get_uarch(0)->uarch);
    if (!r.microarchitecture.empty()) r.uarch_source = "libcpuinfo";
    r.l1d = cache(cpuinfo_get_l1d_caches_count(), cpuinfo_get_l1d_cache(0));
    r.l1i = cache(cpuinfo_get_l1i_caches_count(), cpuinfo_get_l1i_cache(0));
    r.l2 = cache(cpuinfo_get_l2_caches_count(), cpuinfo_get_l2_cache(0));
    r.l3 = cache(cpuinfo_get_l3_caches_count(), cpuinfo_get_l3_cache(0));
  } else {
    r.notes.push_back(
        "libcpuinfo could not read this CPU: counts come from /sys, caches are unknown");
    r.vendor = vendor_name(cpuinfo_vendor_unknown, f.vendor_id);
    r.physical_cores = f.physical_cores();
    r.logical_threads =
        f.online_cpus > 0 ? f.online_cpus : static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
    std::set<int> packages;
    for (const auto& [cpu, pkg] : f.package_of) packages.insert(pkg);
    r.sockets = static_cast<int>(packages.size());
  }
  // The kernel's topology in /sys, where it is there, decides the counts: libcpuinfo reads
  // CPUID, which a hypervisor may fill differently (a 2-core VM reported as 1 core, 2 threads).
  if (const int sys_cores = f.physical_cores(); sys_cores > 0) r.physical_cores = sys_cores;
  if (f.online_cpus > 0) r.logical_threads = f.online_cpus;
  if (r.model_name.empty()) r.model_name = r.normalized_name;
  r.isa = isa_flags(f.flags, x86);
  if (const auto gen = x86_generation(f.vendor_id, f.family, f.model, f.stepping)) {
    r.codename = gen->codename;
    r.process = gen->process;
    // The table names both core types of hybrids; libcpuinfo names only one (or none).
    if (r.microarchitecture.empty() || gen->uarch.find('+') != std::string::npos) {
      r.microarchitecture = gen->uarch;
      r.uarch_source = "family/model table";
    }
  }
  r.name = parse_cpu_name(r.model_name);
  if (r.microarchitecture.empty() && !r.name.microarchitecture.empty()) {
    r.microarchitecture = r.name.microarchitecture;
    r.uarch_source = "model name";
  }
  if (r.codename.empty()) r.codename = r.name.codename;
  if (r.process.empty()) r.process = r.name.process;

  r.max_mhz = max_over(f.max_mhz, {});
  r.base_mhz = max_over(f.base_mhz, {});
  if (f.cpu_mhz > 0) r.current_mhz = f.cpu_mhz;
  if (!r.base_mhz && r.name.base_ghz) r.base_mhz = *r.name.base_ghz * 1000.0;
  r.frequency_source = r.max_mhz       ? "cpufreq in /sys"
                       : r.base_mhz    ? "the model name; /sys has no cpufreq"
                       : r.current_mhz ? "/proc/cpuinfo; /sys has no cpufreq"
                                       : "";
  fill_core_kinds(r, f);
  fill_peak(r, f);
  if (r.virtualized)
    r.notes.push_back(
        "running under a hypervisor: the model name may be masked and the "
        "frequencies hidden (no cpufreq), as on cloud VMs");
  return r;
}

}  // namespace torchlet::hw
