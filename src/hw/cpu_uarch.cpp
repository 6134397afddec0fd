// Microarchitecture tables for the CPU report: libcpuinfo's uarch enum values (cpuinfo.h),
// x86 family/model -> uarch, codename and process (cpufetch's src/x86/uarch.c, Intel's and
// AMD's public model lists; hwinfo.md section 1.6), and FMA units per core (vendor
// optimisation manuals; cpufetch's get_peak_performance).
#include "hw/cpu_uarch.h"

#include <algorithm>
#include <array>

namespace torchlet::hw {
namespace {

struct UarchName {
  uint32_t value;
  const char* name;
};
constexpr std::array<UarchName, 40> kUarchNames = {{
    {0x00100205, "Nehalem"},      {0x00100206, "Sandy Bridge"},  {0x00100207, "Ivy Bridge"},
    {0x00100208, "Haswell"},      {0x00100209, "Broadwell"},     {0x0010020A, "Skylake"},
    {0x0010020B, "Palm Cove"},    {0x0010020C, "Sunny Cove"},    {0x0010020D, "Willow Cove"},
    {0x0010020E, "Golden Cove"},  {0x0010020F, "Raptor Cove"},   {0x00100210, "Redwood Cove"},
    {0x00100404, "Goldmont"},     {0x00100405, "Goldmont Plus"}, {0x00100406, "Tremont"},
    {0x00100407, "Gracemont"},    {0x00100408, "Crestmont"},     {0x00100502, "Knights Landing"},
    {0x00100504, "Knights Mill"}, {0x00200105, "Bulldozer"},     {0x00200106, "Piledriver"},
    {0x00200107, "Steamroller"},  {0x00200108, "Excavator"},     {0x00200109, "Zen"},
    {0x0020010A, "Zen 2"},        {0x0020010B, "Zen 3"},         {0x0020010C, "Zen 4"},
    {0x0020010D, "Zen 5"},        {0x00300353, "Cortex-A53"},    {0x00300355, "Cortex-A55"},
    {0x00300372, "Cortex-A72"},   {0x00300376, "Cortex-A76"},    {0x00300378, "Cortex-A78"},
    {0x00300400, "Neoverse N1"},  {0x00300402, "Neoverse V1"},   {0x00300403, "Neoverse N2"},
    {0x00300500, "Cortex-X1"},    {0x0070010B, "Firestorm"},     {0x0070010C, "Icestorm"},
    {0x01000100, "Dhyana"},
}};

struct FamilyModel {
  const char* vendor_id;
  int family;
  int model_lo, model_hi;
  const char* uarch;
  const char* codename;
  const char* process;
};
constexpr const char* kIntel = "GenuineIntel";
constexpr const char* kAmd = "AuthenticAMD";
constexpr std::array<FamilyModel, 52> kFamilyModels = {{
    {kIntel, 6, 0x2A, 0x2A, "Sandy Bridge", "Sandy Bridge", "32 nm"},
    {kIntel, 6, 0x2D, 0x2D, "Sandy Bridge", "Sandy Bridge-EP", "32 nm"},
    {kIntel, 6, 0x3A, 0x3A, "Ivy Bridge", "Ivy Bridge", "22 nm"},
    {kIntel, 6, 0x3E, 0x3E, "Ivy Bridge", "Ivy Bridge-EP", "22 nm"},
    {kIntel, 6, 0x3C, 0x3C, "Haswell", "Haswell", "22 nm"},
    {kIntel, 6, 0x3F, 0x3F, "Haswell", "Haswell-EP", "22 nm"},
    {kIntel, 6, 0x45, 0x46, "Haswell", "Haswell", "22 nm"},
    {kIntel, 6, 0x3D, 0x3D, "Broadwell", "Broadwell", "14 nm"},
    {kIntel, 6, 0x47, 0x47, "Broadwell", "Broadwell", "14 nm"},
    {kIntel, 6, 0x4F, 0x4F, "Broadwell", "Broadwell-EP", "14 nm"},
    {kIntel, 6, 0x56, 0x56, "Broadwell", "Broadwell-DE", "14 nm"},
    {kIntel, 6, 0x4E, 0x4E, "Skylake", "Skylake", "14 nm"},
    {kIntel, 6, 0x5E, 0x5E, "Skylake", "Skylake", "14 nm"},
    {kIntel, 6, 0x55, 0x55, "Skylake", "Skylake-SP", "14 nm"},  // stepping refines: below
    {kIntel, 6, 0x8E, 0x8E, "Skylake", "Kaby Lake / Whiskey Lake / Comet Lake (mobile)", "14 nm"},
    {kIntel, 6, 0x9E, 0x9E, "Skylake", "Coffee Lake", "14 nm"},
    {kIntel, 6, 0xA5, 0xA6, "Skylake", "Comet Lake", "14 nm"},
    {kIntel, 6, 0x7D, 0x7E, "Sunny Cove", "Ice Lake", "10 nm"},
    {kIntel, 6, 0x6A, 0x6C, "Sunny Cove", "Ice Lake-SP", "10 nm"},
    {kIntel, 6, 0xA7, 0xA7, "Cypress Cove", "Rocket Lake", "14 nm"},
    {kIntel, 6, 0x8C, 0x8D, "Willow Cove", "Tiger Lake", "10 nm SuperFin"},
    {kIntel, 6, 0x97, 0x97, "Golden Cove + Gracemont", "Alder Lake", "Intel 7"},
    {kIntel, 6, 0x9A, 0x9A, "Golden Cove + Gracemont", "Alder Lake", "Intel 7"},
    {kIntel, 6, 0xBE, 0xBE, "Gracemont", "Alder Lake-N", "Intel 7"},
    {kIntel, 6, 0xB7, 0xB7, "Raptor Cove + Gracemont", "Raptor Lake", "Intel 7"},
    {kIntel, 6, 0xBA, 0xBA, "Raptor Cove + Gracemont", "Raptor Lake", "Intel 7"},
    {kIntel, 6, 0xBF, 0xBF, "Raptor Cove + Gracemont", "Raptor Lake", "Intel 7"},
    {kIntel, 6, 0x8F, 0x8F, "Golden Cove", "Sapphire Rapids", "Intel 7"},
    {kIntel, 6, 0xCF, 0xCF, "Raptor Cove", "Emerald Rapids", "Intel 7"},
    {kIntel, 6, 0xAA, 0xAA, "Redwood Cove + Crestmont", "Meteor Lake", "Intel 4"},
    {kIntel, 6, 0xAC, 0xAC, "Redwood Cove + Crestmont", "Meteor Lake", "Intel 4"},
    {kIntel, 6, 0xBD, 0xBD, "Lion Cove + Skymont", "Lunar Lake", "TSMC N3B"},
    {kIntel, 6, 0xC5, 0xC6, "Lion Cove + Skymont", "Arrow Lake", "TSMC N3B"},
    {kIntel, 6, 0xAD, 0xAE, "Redwood Cove", "Granite Rapids", "Intel 3"},
    {kIntel, 6, 0xAF, 0xAF, "Crestmont", "Sierra Forest", "Intel 3"},
    {kAmd, 0x17, 0x01, 0x01, "Zen", "Naples / Summit Ridge", "14 nm"},
    {kAmd, 0x17, 0x08, 0x08, "Zen+", "Pinnacle Ridge", "12 nm"},
    {kAmd, 0x17, 0x11, 0x11, "Zen", "Raven Ridge", "14 nm"},
    {kAmd, 0x17, 0x18, 0x18, "Zen+", "Picasso", "12 nm"},
    {kAmd, 0x17, 0x31, 0x31, "Zen 2", "Rome / Castle Peak", "7 nm"},
    {kAmd, 0x17, 0x60, 0x68, "Zen 2", "Renoir / Lucienne", "7 nm"},
    {kAmd, 0x17, 0x71, 0x71, "Zen 2", "Matisse", "7 nm"},
    {kAmd, 0x19, 0x00, 0x0F, "Zen 3", "Milan", "7 nm"},
    {kAmd, 0x19, 0x10, 0x1F, "Zen 4", "Genoa / Storm Peak", "5 nm"},
    {kAmd, 0x19, 0x20, 0x2F, "Zen 3", "Vermeer", "7 nm"},
    {kAmd, 0x19, 0x40, 0x4F, "Zen 3+", "Rembrandt", "6 nm"},
    {kAmd, 0x19, 0x50, 0x5F, "Zen 3", "Cezanne", "7 nm"},
    {kAmd, 0x19, 0x60, 0x6F, "Zen 4", "Raphael", "5 nm"},
    {kAmd, 0x19, 0x70, 0x7F, "Zen 4", "Phoenix / Hawk Point", "4 nm"},
    {kAmd, 0x19, 0xA0, 0xAF, "Zen 4c", "Bergamo / Siena", "5 nm"},
    {kAmd, 0x1A, 0x00, 0x0F, "Zen 5", "Turin", "4 nm"},
    {kAmd, 0x1A, 0x10, 0x7F, "Zen 5", "Strix Point / Granite Ridge / Strix Halo", "4 nm"},
}};

bool has(const std::set<std::string>& flags, const char* flag) { return flags.count(flag) > 0; }

bool starts_with_any(const std::string& s, std::initializer_list<const char*> prefixes) {
  return std::any_of(prefixes.begin(), prefixes.end(),
                     [&](const char* p) { return s.rfind(p, 0) == 0; });
}

}  // namespace

std::optional<X86Generation> x86_generation(const std::string& vendor_id, int family, int model,
                                            int stepping) {
  for (const FamilyModel& fm : kFamilyModels) {
    if (vendor_id != fm.vendor_id || family != fm.family || model < fm.model_lo ||
        model > fm.model_hi)
      continue;
    X86Generation g{fm.uarch, fm.codename, fm.process};
    if (vendor_id == kIntel && model == 0x55)  // one model number, three server generations
      g.codename = stepping >= 10 ? "Cooper Lake" : stepping >= 5 ? "Cascade Lake" : "Skylake-SP";
    return g;
  }
  return std::nullopt;
}

std::string cpuinfo_uarch_name(uint32_t uarch) {
  for (const UarchName& u : kUarchNames)
    if (u.value == uarch) return u.name;
  return "";
}

int fp32_flops_per_cycle(const std::string& uarch, const std::string& codename,
                         const std::set<std::string>& flags, std::string* why) {
  auto answer = [&](int flops, const char* reason) {
    if (why) *why = reason;
    return flops;
  };
  const bool server_avx512 =
      has(flags, "avx512f") &&
      starts_with_any(codename, {"Skylake-SP", "Cascade", "Cooper", "Ice Lake-SP", "Sapphire",
                                 "Emerald", "Granite"});
  if (server_avx512) return answer(64, "two AVX-512 FMA units: 2 x 16 FP32 lanes x 2");
  if (starts_with_any(uarch, {"Sandy", "Ivy"}))
    return answer(16, "AVX without FMA: one 8-lane add and one 8-lane multiply per cycle");
  if (starts_with_any(uarch, {"Haswell", "Broadwell", "Skylake", "Cypress", "Sunny", "Willow",
                              "Golden", "Raptor", "Redwood", "Lion", "Zen 2", "Zen 3", "Zen 4",
                              "Skymont", "Neoverse V1", "Firestorm"}))
    return answer(32, "two 256-bit FMA units (or four 128-bit): 2 x 8 FP32 lanes x 2");
  if (starts_with_any(uarch, {"Zen 5"}))
    return codename.find("Strix") != std::string::npos
               ? answer(32, "Zen 5 in laptops: 256-bit FMA datapaths, 2 x 8 FP32 lanes x 2")
               : answer(64, "two 512-bit FMA units: 2 x 16 FP32 lanes x 2");
  if (starts_with_any(uarch, {"Zen", "Gracemont", "Crestmont", "Neoverse N", "Cortex-A7",
                              "Cortex-X1", "Icestorm"}))
    return answer(16, "two 128-bit FMA units: 2 x 4 FP32 lanes x 2");
  if (has(flags, "fma") && has(flags, "avx2"))
    return answer(32, "assumed from AVX2 and FMA: two 256-bit FMA units, 2 x 8 lanes x 2");
  if (has(flags, "avx")) return answer(16, "assumed from AVX: 8-lane add + 8-lane multiply");
  if (has(flags, "sse2")) return answer(8, "assumed from SSE: 4-lane add + 4-lane multiply");
  if (has(flags, "asimd")) return answer(8, "assumed from NEON: one 128-bit FMA unit, 4 x 2");
  return answer(0, "unknown microarchitecture and instruction sets");
}

}  // namespace torchlet::hw
