// The course's reading of GPU names, as text: the first digits are the generation (and so the
// architecture), the last two the tier (xx50 entry ... xx90 flagship), and Ti/SUPER sit
// between tiers. Years and letters: NVIDIA's product pages; see data/gpus.md.
#include "hw/gpu_meanings.h"

#include <algorithm>

#include "hw/text.h"
#include "torchlet/hw/gpu_specs.h"

namespace torchlet::hw {
namespace {

struct GeForceGen {
  int generation;
  const char* series;
  const char* years;
  int cc_major, cc_minor;
};
constexpr GeForceGen kGeForceGens[] = {
    {6, "GTX 600", "2012", 3, 0}, {7, "GTX 700", "2013", 3, 5}, {9, "GTX 900", "2014", 5, 2},
    {10, "GTX 10", "2016", 6, 1}, {16, "GTX 16", "2019", 7, 5}, {20, "RTX 20", "2018", 7, 5},
    {30, "RTX 30", "2020", 8, 6}, {40, "RTX 40", "2022", 8, 9}, {50, "RTX 50", "2025", 12, 0}};

struct DataCenterLetter {
  const char* letter;
  const char* years;
  int cc_major, cc_minor;
};
constexpr DataCenterLetter kLetters[] = {
    {"k", "2012-2014", 3, 7}, {"m", "2015", 5, 2},  {"p", "2016", 6, 0},  {"v", "2017", 7, 0},
    {"t", "2018", 7, 5},      {"a", "2020", 8, 0},  {"l", "2022", 8, 9},  {"h", "2022", 9, 0},
    {"b", "2024", 10, 0},     {"gh", "2023", 9, 0}, {"gb", "2024", 10, 0}};

std::string arch_phrase(int major, int minor) {
  const GpuArch a = gpu_arch(major, minor);
  return a.name + " architecture (" + a.features + ")";
}

void set_arch(GpuName& g, int major, int minor) { g.architecture = gpu_arch(major, minor).name; }

std::string two_digits(int n) {
  std::string s = std::to_string(n);
  if (s.size() < 2) s.insert(s.begin(), '0');
  return s;
}

std::string geforce_tier_meaning(int tier) {
  switch (tier) {
    case 90: return "xx90: the flagship of the generation: the most performance and the most VRAM";
    case 80: return "xx80: high end: strong performance and plenty of VRAM";
    case 70: return "xx70: upper mid-range, the sweet spot of price and performance";
    case 60: return "xx60: mainstream: good value, fine to start with or on a budget";
    case 50: return "xx50: entry level: limited for deep learning";
    default: break;
  }
  return tier < 50
             ? "xx" + two_digits(tier) + ": low end: a display adapter, not for deep learning"
             : "xx" + two_digits(tier) + ": not one of the usual tiers (50 entry ... 90 flagship)";
}

std::string workstation_tier_meaning(const std::string& number, const char* line_up) {
  return number +
         ": the workstation tier, not a generation: higher numbers have more SMs and "
         "VRAM (" +
         line_up + ")";
}

// The next desktop model up in the same GeForce generation ("RTX 3090" after 3080), from the
// table of known GPUs; "" at the top of the series.
std::string next_model_up(const std::string& brand_word, int generation, int number) {
  int best = 0;
  for (const KnownGpu& k : known_gpus()) {
    if (k.form != "desktop") continue;
    const std::vector<std::string> words = text::split(text::lower(k.name), " ");
    const auto it = std::find(words.begin(), words.end(), brand_word);
    if (it == words.end() || it + 1 == words.end() || !text::all_digits(*(it + 1))) continue;
    const int n = text::small_int(*(it + 1)).value_or(0);
    if (n / 100 == generation && n > number && (best == 0 || n < best)) best = n;
  }
  if (best == 0) return "";
  return (brand_word == "rtx" ? "RTX " : "GTX ") + std::to_string(best);
}

}  // namespace

void set_geforce_model(GpuName& g, const std::string& prefix, const std::string& number) {
  const std::string upper = prefix == "rtx"   ? "RTX"
                            : prefix == "gtx" ? "GTX"
                            : prefix == "gt"  ? "GT"
                                              : "MX";
  g.brand = "GeForce " + upper;
  g.form = prefix == "mx" ? "laptop" : "desktop";
  g.model = upper + " " + number;
  if (number.empty()) {
    g.notes.push_back("no model number after " + g.brand);
    return;
  }
  const int n = text::small_int(number).value_or(0);
  g.tier = n % 100;
  if (prefix == "mx") {
    g.generation = n / 100;
    g.series = "MX" + std::to_string(g.generation) + "00";
    const int major = n >= 570 ? 8 : g.generation >= 4 ? 7 : 6;
    const int minor = n >= 570 ? 6 : g.generation >= 4 ? 5 : 1;
    set_arch(g, major, minor);
    g.generation_meaning = std::to_string(g.generation) + " = the " + g.series +
                           " series of laptop graphics: " + arch_phrase(major, minor);
    g.tier_meaning = "MX: entry-level laptop graphics, far below any RTX: not for deep learning";
    return;
  }
  g.generation = n / 100;
  g.tier_meaning = geforce_tier_meaning(g.tier);
  for (const GeForceGen& gen : kGeForceGens) {
    if (gen.generation != g.generation) continue;
    g.series = gen.series;
    set_arch(g, gen.cc_major, gen.cc_minor);
    g.generation_meaning =
        std::to_string(g.generation) + " = the " + gen.series + " series (" + gen.years + "): " +
        (g.generation == 16 ? "Turing architecture without tensor cores or RT cores"
                            : arch_phrase(gen.cc_major, gen.cc_minor));
    return;
  }
  g.notes.push_back("generation " + std::to_string(g.generation) + " of " + g.brand +
                    " is not one torchlet knows");
}

void set_titan(GpuName& g, const std::string& variant, bool gtx, bool pascal) {
  g.brand = "TITAN";
  g.form = "desktop";
  g.model = std::string(gtx ? "GTX " : "") + "TITAN" + (variant.empty() ? "" : " " + variant) +
            (pascal ? " (Pascal)" : "");
  g.tier_meaning =
      "TITAN: the prosumer top card of its generation, above the xx80 Ti, with "
      "the most VRAM";
  const std::string v = text::lower(variant);
  int major = 0, minor = 0;
  std::string year;
  if (v == "rtx")
    major = 7, minor = 5, year = "2018";
  else if (v == "v")
    major = 7, minor = 0, year = "2017";
  else if (v == "xp")
    major = 6, minor = 1, year = "2017";
  else if (v == "x" && pascal)
    major = 6, minor = 1, year = "2016";
  else if (v == "x" && gtx)
    major = 5, minor = 2, year = "2015";
  else if (v == "z" || v == "black" || (v.empty() && gtx))
    major = 3, minor = 5, year = "2013-2014";
  if (major == 0) {
    g.notes.push_back(
        "'TITAN X' is the Maxwell GTX TITAN X (2015) or the TITAN X (Pascal) "
        "(2016): the name does not say which");
    return;
  }
  set_arch(g, major, minor);
  g.generation_meaning = g.model + " (" + year + "): " + arch_phrase(major, minor);
}

void set_quadro(GpuName& g, const std::string& model, bool rtx) {
  g.brand = rtx ? "Quadro RTX" : "Quadro";
  g.form = "workstation";
  g.model = model;
  const AlphaNum a = split_alnum(text::lower(model));
  int major = 0, minor = 0;
  if (rtx || a.prefix == "t")
    major = 7, minor = 5;
  else if (a.prefix == "gv")
    major = 7, minor = 0;
  else if (a.prefix == "p" || a.prefix == "gp")
    major = 6, minor = 1;
  else if (a.prefix == "m")
    major = 5, minor = 2;
  else if (a.prefix == "k")
    major = 3, minor = 0;
  if (major) {
    set_arch(g, major, minor);
    g.generation_meaning = std::string(rtx ? "Quadro RTX (2018)" : "the letter " + a.prefix) +
                           ": " + arch_phrase(major, minor);
  }
  if (!a.digits.empty())
    g.tier_meaning =
        workstation_tier_meaning(a.digits, rtx ? "4000 < 5000 < 6000 < 8000" : "higher is bigger");
}

void set_rtx_pro(GpuName& g, const std::string& number, bool blackwell) {
  g.brand = "RTX PRO";
  g.form = "workstation";
  g.model = "RTX PRO " + number;
  set_arch(g, 12, 0);
  g.generation_meaning =
      std::string(blackwell ? "Blackwell" : "RTX PRO") + " (2025): " + arch_phrase(12, 0);
  if (!number.empty())
    g.tier_meaning = workstation_tier_meaning(number, "2000 < 4000 < 4500 < 5000 < 6000");
}

void set_rtx_a(GpuName& g, const std::string& model) {
  g.brand = "RTX A-series";
  g.form = "workstation";
  g.model = model;
  set_arch(g, 8, 6);
  g.generation_meaning = "A = Ampere (2020-2022): " + arch_phrase(8, 6);
  g.tier_meaning = workstation_tier_meaning(model, "A2000 < A4000 < A4500 < A5000 < A5500 < A6000");
}

void set_rtx_ada_or_ambiguous(GpuName& g, const std::string& number, bool ada) {
  g.form = "workstation";
  g.model = "RTX " + number;
  g.tier_meaning = workstation_tier_meaning(number, "2000 < 4000 < 4500 < 5000 < 6000");
  if (ada) {
    g.brand = "RTX Ada";
    set_arch(g, 8, 9);
    g.generation_meaning = "Ada Generation (2022-2024): " + arch_phrase(8, 9);
    return;
  }
  g.brand = "RTX workstation";
  g.notes.push_back("'RTX " + number + "' alone is ambiguous: the Quadro RTX " + number +
                    " (Turing, 2018), the RTX " + number +
                    " Ada Generation (2022-2024) and the "
                    "RTX PRO " +
                    number +
                    " Blackwell (2025) share it. Only a GeForce number "
                    "(20xx-50xx ending in 50-90) names a consumer generation");
}

bool set_datacenter(GpuName& g, const AlphaNum& word, bool tesla) {
  const auto* letter = std::find_if(std::begin(kLetters), std::end(kLetters),
                                    [&](const auto& l) { return word.prefix == l.letter; });
  if (letter == std::end(kLetters)) return false;
  const int n = text::small_int(word.digits).value_or(0);
  const std::string upper_prefix = text::upper(word.prefix),
                    upper_suffix = text::upper(word.suffix);
  g.brand = tesla ? "Tesla" : "data center";
  g.form = "datacenter";
  g.model = g.series = upper_prefix + word.digits + upper_suffix;
  int major = letter->cc_major, minor = letter->cc_minor;
  if (word.prefix == "a" && n != 100 && n != 30 && n != 800) minor = 6;  // A10, A40: GA102
  if (word.prefix == "p" && n != 100) minor = 1;                         // P40, P4: GP102/104
  if (word.prefix == "gb" && n == 10) {
    g.brand = "DGX Spark";
    g.form = "desktop";
    major = 12, minor = 1;
    g.notes.push_back("GB10 shares its 128 GB of memory with the Grace CPU (unified memory)");
  }
  set_arch(g, major, minor);
  g.generation_meaning =
      upper_prefix + " = " + g.architecture + " (" + letter->years +
      "), the data-center letter of the generation: " + gpu_arch(major, minor).features;
  if (word.prefix.size() == 2 && n >= 100)
    g.tier_meaning = "a superchip: an NVIDIA Grace CPU and the " + g.architecture +
                     " GPU on one board, sharing memory over NVLink-C2C";
  else if (n == 100)
    g.tier_meaning = "100: the flagship training GPU of its generation";
  else if (n == 200 && word.prefix == "h")
    g.tier_meaning =
        "200: the H100's successor: the same Hopper GPU with more, faster memory (HBM3e)";
  else if (n == 200)
    g.tier_meaning = "200: the flagship training GPU of its generation";
  else if (n == 300)
    g.tier_meaning = "300: the refresh of the 200 with more memory";
  else if (n == 800 || n == 20)
    g.tier_meaning = "a China-market version with reduced interconnect or compute";
  else if (n == 40)
    g.tier_meaning = "40: graphics and AI, the data-center twin of the workstation flagship";
  else if (n == 30)
    g.tier_meaning = "30: mainstream compute, a smaller sibling of the 100";
  else if (n == 80 || n == 60)
    g.tier_meaning = "a board with two GPUs";
  else if (n <= 16)
    g.tier_meaning = "a small, low-power inference or virtual-desktop card";
  if (upper_suffix == "S")
    add_part(g.suffixes, "S", "a higher-clocked version");
  else if (upper_suffix == "G")
    add_part(g.suffixes, "G", "the variant built for AWS (G5 instances)");
  return true;
}

void set_jetson(GpuName& g, const std::string& chip) {
  g.brand = "Jetson";
  g.form = "embedded";
  g.model = chip.empty() ? "Jetson" : text::capitalize(chip);
  if (chip == "orin")
    set_arch(g, 8, 7);
  else if (chip == "xavier")
    set_arch(g, 7, 2);
  else if (chip == "thor")
    set_arch(g, 11, 0);
  else if (chip == "tegra")
    set_arch(g, 5, 3);
  g.notes.push_back(
      "an integrated GPU that shares the CPU's memory (unified memory): the VRAM "
      "verdict and bandwidth formulas do not apply");
}

void set_other_vendor(GpuName& g, const std::string& brand_word) {
  const std::string b = text::capitalize(brand_word);
  g.brand = b.empty() ? g.vendor : b == "Uhd" ? "UHD Graphics" : b;
  const char* how = g.vendor == "AMD"     ? "PyTorch reaches AMD GPUs through ROCm (HIP)"
                    : g.vendor == "Intel" ? "PyTorch reaches Intel GPUs through its XPU backend"
                                          : "PyTorch reaches Apple GPUs through MPS";
  g.notes.push_back("not an NVIDIA GPU, so CUDA does not run on it: " + std::string(how) +
                    ", which torchlet does not support");
}

void set_suffix_meanings(GpuName& g, const Suffixes& s) {
  const bool geforce = g.brand == "GeForce RTX" || g.brand == "GeForce GTX";
  const std::string base = g.model.empty() ? "card" : g.model;
  std::string up;
  if (geforce && g.generation && !g.model.empty()) {
    const std::string brand_word = g.brand == "GeForce RTX" ? "rtx" : "gtx";
    up = next_model_up(brand_word, g.generation, g.generation * 100 + g.tier);
  }
  const std::string top = "the top of the " + (g.series.empty() ? g.brand : g.series) + " series";
  const std::string above =
      up.empty() ? ", above it: " + top : ": between the " + base + " and the " + up;
  if (s.ti && s.super) {
    add_part(g.suffixes, "Ti SUPER",
             "a refresh of the " + base + " Ti with more SMs" +
                 (up.empty() ? ": " + top : ": between the " + base + " Ti and the " + up));
  } else if (s.ti) {
    add_part(g.suffixes, "Ti", "an enhanced " + base + above);
  } else if (s.super) {
    const bool ti_exists = geforce && find_known_gpu("GeForce " + base + " Ti") != nullptr;
    add_part(g.suffixes, "SUPER",
             "a mid-generation refresh of the " + base + " with more SMs or faster memory" +
                 (ti_exists ? ": between the " + base + " and the " + base + " Ti" : above));
  }
  if (s.d)
    add_part(g.suffixes, "D",
             "a China-market version of the " + base + " (export rules), with fewer SMs");
  if (s.laptop) {
    g.form = "laptop";
    add_part(g.suffixes, "Laptop GPU",
             "a laptop part: it shares the desktop " + base +
                 "'s name but not its configuration (fewer SMs or lower clocks, a power "
                 "limit set by the laptop maker, often less VRAM): expect it to be slower");
  }
  if (s.max_q) {
    g.form = "laptop";
    add_part(g.suffixes, "Max-Q",
             "Max-Q design: the power-limited version for thin laptops, slower than "
             "the full-power laptop part");
  }
  if (!s.sxm.empty())
    add_part(g.suffixes, s.sxm,
             s.sxm +
                 " module: mounted on an HGX/DGX board with NVLink between GPUs and "
                 "the highest power limit: the fastest version of the " +
                 base);
  if (s.pcie)
    add_part(g.suffixes, "PCIe",
             "a PCIe add-in card: a lower power limit than the SXM module, so lower clocks "
             "(the H100 PCIe also has fewer SMs and slower memory)");
  if (s.nvl)
    add_part(g.suffixes, "NVL",
             "a PCIe card sold in NVLink-bridged pairs, with more memory than the SXM version");
  if (!s.hbm.empty())
    add_part(g.suffixes, s.hbm,
             s.hbm +
                 " memory (stacked high-bandwidth memory); in 'H100 80GB HBM3' it "
                 "marks the SXM5 module");
  if (s.sff)
    add_part(g.suffixes, "SFF", "small form factor: a half-height, low-power (70 W) version");
  if (s.ada_generation)
    add_part(g.suffixes, "Ada Generation", "the Ada Lovelace workstation card, not a GeForce");
  if (!s.edition.empty())
    add_part(g.suffixes, s.edition,
             text::istarts_with(s.edition, "server") ? "passively cooled, for servers"
                                                     : "with its own fan, for workstations");
  if (g.memory_gb)
    add_part(g.suffixes, std::to_string(*g.memory_gb) + "GB",
             std::to_string(*g.memory_gb) +
                 " GB of VRAM, written in the name (the same model comes "
                 "with other sizes)");
}

}  // namespace torchlet::hw
