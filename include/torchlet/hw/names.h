// Reading CPU and GPU model names the way the course does: vendor, family, generation and its
// architecture, tier, and what each suffix means. Pure string parsing, no hardware is queried;
// a name nobody taught us gets a best-effort reading that lists the words it could not place.
// The parsers never throw on any input.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace torchlet::hw {

// One recognised piece of a name and what it means, e.g. {"Ti", "an enhanced RTX 3080 ..."}.
struct NamePart {
  std::string text;
  std::string meaning;
};

// What a GPU name says. Empty strings and zeros mean "the name does not say".
struct GpuName {
  std::string input;
  std::string vendor;              // "NVIDIA", "AMD", "Intel"
  std::string brand;               // "GeForce RTX", "GeForce GTX", "TITAN", "data center", ...
  std::string form;                // "desktop", "laptop", "datacenter", "workstation", "embedded"
  std::string model;               // "3080", "A100", "A6000", "T4"
  std::string series;              // "RTX 30", "GTX 16", "A100" (as users say it)
  int generation = 0;              // 30 for an RTX 3080, 10 for a GTX 1080
  std::string generation_meaning;  // "30 = the RTX 30 series (2020), Ampere architecture"
  std::string architecture;        // "Ampere"; from the generation or the data-center letter
  int tier = 0;                    // 80 for an RTX 3080: the last two digits
  std::string tier_meaning;        // the course's reading: xx50 entry ... xx90 flagship
  std::vector<NamePart> suffixes;  // Ti, SUPER, Laptop GPU, Max-Q, SXM4, PCIe, NVL, D, ...
  std::optional<int> memory_gb;    // VRAM written in the name ("-80GB", "6GB")
  std::vector<std::string> unrecognized;  // words the parser could not place
  std::vector<std::string> notes;

  bool recognized() const { return !vendor.empty() && !brand.empty(); }
};

// What a CPU name says ("11th Gen Intel(R) Core(TM) i5-11300H @ 3.10GHz").
struct CpuName {
  std::string input;
  std::string vendor;  // "Intel", "AMD", "Apple"
  std::string family;  // "Core", "Core Ultra", "Xeon", "Ryzen", "EPYC", "Apple M"
  std::string tier;    // "i5", "Ultra 7", "Ryzen 7", "Platinum", "Pro"
  std::string tier_meaning;
  int generation = 0;              // 11 for an i5-11300H, 7 for a Ryzen 7 7800X3D, 2 for an M2
  std::string generation_meaning;  // "11th generation Core (2020-2021)"
  std::string codename;            // "Tiger Lake"
  std::string microarchitecture;   // "Willow Cove", "Zen 4"
  std::string process;             // "10 nm SuperFin"
  std::string model_number;        // "11300"
  std::string sku;                 // "300": the position within the generation and tier
  std::string sku_meaning;
  std::vector<NamePart> suffixes;  // H, K, F, KF, HX, U, X3D, ...
  std::optional<double> base_ghz;  // "@ 3.10GHz" (the base clock on Intel names that carry it)
  std::optional<int> cores;        // "16-Core Processor", or P + E when the name gives both
  std::optional<int> performance_cores;
  std::optional<int> efficiency_cores;
  std::vector<std::string> unrecognized;
  std::vector<std::string> notes;

  bool recognized() const { return !vendor.empty() && !family.empty(); }
};

enum class NameKind { Cpu, Gpu, Unknown };

// Whether a name looks like a CPU or a GPU, from its words (GeForce, RTX, Core, Ryzen, ...).
NameKind guess_name_kind(std::string_view name);
GpuName parse_gpu_name(std::string_view name);
CpuName parse_cpu_name(std::string_view name);

}  // namespace torchlet::hw
