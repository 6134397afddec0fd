// What torchlet knows about CPU microarchitectures beyond libcpuinfo (internal to src/hw):
// names for libcpuinfo's uarch enum, an x86 family/model table for CPUs newer than Debian's
// 2022 libcpuinfo, and FP32 FLOPs per cycle per core for the peak estimate.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>

namespace torchlet::hw {

struct X86Generation {
  std::string uarch;     // "Zen 3", "Golden Cove + Gracemont" (P + E on hybrids)
  std::string codename;  // "Milan", "Alder Lake"
  std::string process;   // "7 nm", "Intel 7"
};

// Looks up an x86 CPU by its /proc/cpuinfo vendor_id, family, model and stepping (cpufetch's
// table in spirit; see ../shared/reference/hwinfo.md section 1.6).
std::optional<X86Generation> x86_generation(const std::string& vendor_id, int family, int model,
                                            int stepping);

// The name of a libcpuinfo `enum cpuinfo_uarch` value, or "" when torchlet has none. Raw
// values are used so names also come out for a newer libcpuinfo than the one built against.
std::string cpuinfo_uarch_name(uint32_t uarch);

// FP32 FLOPs per cycle per core (vector units x lanes x 2 for FMA). `why` says what the
// number rests on. 0 when nothing is known. `flags` are kernel flag names (avx2, fma, ...).
int fp32_flops_per_cycle(const std::string& uarch, const std::string& codename,
                         const std::set<std::string>& flags, std::string* why);

}  // namespace torchlet::hw
