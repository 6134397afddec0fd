// Intel names: Core i3/i5/i7/i9 ("11th Gen Intel(R) Core(TM) i5-11300H @ 3.10GHz"), Core Ultra,
// Core m, and Xeon (Scalable, E3/E5/E7 vN, W, Xeon 6). Generations, codenames and suffix
// letters follow Intel's processor-numbers pages and ark.intel.com as the course reads them.
#include <algorithm>

#include "hw/cpu_names_detail.h"
#include "hw/text.h"

namespace torchlet::hw {
namespace {

struct Generation {
  int gen;
  const char* years;
  const char* codename;
  const char* uarch;
  const char* process;
};
constexpr Generation kCoreGenerations[] = {
    {1, "2008-2010", "Nehalem / Westmere", "Nehalem", "45 / 32 nm"},
    {2, "2011", "Sandy Bridge", "Sandy Bridge", "32 nm"},
    {3, "2012", "Ivy Bridge", "Ivy Bridge", "22 nm"},
    {4, "2013", "Haswell", "Haswell", "22 nm"},
    {5, "2015", "Broadwell", "Broadwell", "14 nm"},
    {6, "2015", "Skylake", "Skylake", "14 nm"},
    {7, "2017", "Kaby Lake", "Skylake", "14 nm"},
    {8, "2017-2018", "Coffee Lake", "Skylake", "14 nm"},
    {9, "2018-2019", "Coffee Lake Refresh", "Skylake", "14 nm"},
    {10, "2020", "Comet Lake", "Skylake", "14 nm"},
    {11, "2021", "Rocket Lake", "Cypress Cove", "14 nm"},
    {12, "2021-2022", "Alder Lake", "Golden Cove + Gracemont", "Intel 7"},
    {13, "2022-2023", "Raptor Lake", "Raptor Cove + Gracemont", "Intel 7"},
    {14, "2023-2024", "Raptor Lake Refresh", "Raptor Cove + Gracemont", "Intel 7"}};
// Laptop parts of some generations are a different design from the desktop ones.
constexpr Generation kMobileGenerations[] = {
    {8, "2017-2018", "Kaby Lake R / Whiskey Lake", "Skylake", "14 nm"},
    {10, "2019", "Ice Lake", "Sunny Cove", "10 nm"},  // the G1-G7 parts only
    {11, "2020-2021", "Tiger Lake", "Willow Cove", "10 nm SuperFin"}};
constexpr Generation kUltraSeries[] = {
    {1, "2023", "Meteor Lake", "Redwood Cove + Crestmont", "Intel 4"},
    {2, "2024-2025", "Arrow Lake", "Lion Cove + Skymont", "TSMC N3B"},
    {3, "2025-2026", "Panther Lake", "Cougar Cove + Darkmont", "Intel 18A"}};
constexpr Generation kLunarLake = {2, "2024", "Lunar Lake", "Lion Cove + Skymont", "TSMC N3B"};
constexpr Generation kScalable[] = {
    {1, "2017", "Skylake-SP", "Skylake", "14 nm"},
    {2, "2019", "Cascade Lake", "Skylake", "14 nm"},
    {3, "2020-2021", "Cooper Lake / Ice Lake-SP", "Skylake / Sunny Cove", "14 / 10 nm"},
    {4, "2023", "Sapphire Rapids", "Golden Cove", "Intel 7"},
    {5, "2023", "Emerald Rapids", "Raptor Cove", "Intel 7"}};
constexpr Generation kXeonE[] = {{1, "2011-2012", "Sandy Bridge", "Sandy Bridge", "32 nm"},
                                 {2, "2013-2014", "Ivy Bridge", "Ivy Bridge", "22 nm"},
                                 {3, "2014", "Haswell", "Haswell", "22 nm"},
                                 {4, "2016", "Broadwell", "Broadwell", "14 nm"},
                                 {5, "2015-2016", "Skylake", "Skylake", "14 nm"},
                                 {6, "2017", "Kaby Lake", "Skylake", "14 nm"}};

constexpr SuffixMeaning kCombined[] = {
    {"HX", "the highest-performance laptop part: a desktop-class chip in a laptop, unlocked"},
    {"HK", "high-performance laptop part, unlocked for overclocking"},
    {"HQ", "high-performance laptop part, quad core"},
    {"KS", "special edition: the highest-clocked unlocked desktop part"},
    {"XE", "Extreme Edition: the top high-end-desktop part, unlocked"},
    {"QM", "quad-core laptop part"},
    {"MQ", "quad-core laptop part"}};
constexpr SuffixMeaning kSingle[] = {
    {"K", "unlocked: it can be overclocked, and runs higher clocks"},
    {"F", "no integrated graphics: it needs a graphics card"},
    {"T", "power-optimised desktop part (35 W)"},
    {"S", "power-optimised desktop part"},
    {"H",
     "high-performance laptop part (standard voltage, 35-45 W; the course reads H as "
     "high-performance graphics and memory)"},
    {"U", "ultra-low-power laptop part (15-28 W): thin laptops, lower sustained speed"},
    {"Y", "extremely low power laptop part (under 10 W): fanless designs"},
    {"P", "performance thin-and-light laptop part (28 W), between U and H"},
    {"V", "low-power laptop part with the memory on the package (Lunar Lake)"},
    {"X", "Extreme: a high-end-desktop part, unlocked"},
    {"E", "embedded part"},
    {"M", "laptop part (older naming)"},
    {"C", "desktop part with high-end integrated graphics"},
    {"R", "desktop part soldered to the board, with high-end integrated graphics"},
    {"B", "desktop part soldered to the board"},
    {"L", "Lakefield: low-power hybrid laptop part"}};
constexpr SuffixMeaning kXeonSuffixes[] = {
    {"+", "with more of the on-chip accelerators (DSA, QAT, DLB, IAA) enabled"},
    {"R", "refresh: more cores or clocks than the original SKU"},
    {"H", "for 4-8 socket database and analytics servers"},
    {"L", "supports large memory"},
    {"M", "media-optimised"},
    {"N", "networking-optimised"},
    {"P", "cloud (IaaS) optimised"},
    {"Q", "for liquid cooling"},
    {"S", "storage-optimised"},
    {"T", "long life and high temperature"},
    {"U", "single-socket"},
    {"V", "cloud (SaaS) optimised"},
    {"Y", "with Speed Select Technology"},
    {"X", "the highest tier of its line"}};

const char* tier_meaning(char level) {
  switch (level) {
    case '3': return "entry level";
    case '5':
      return "mainstream: between entry level (3) and high performance (7), balancing "
             "multitasking and single-thread speed";
    case '7': return "high performance";
    case '9': return "enthusiast: the top of the line";
    default: return "";
  }
}

void set_generation(CpuName& c, const Generation& g, const std::string& label) {
  c.generation_meaning =
      label + " (" + g.years + "): " + g.codename + ", " + g.uarch + " cores, " + g.process;
  c.codename = g.codename;
  c.microarchitecture = g.uarch;
  c.process = g.process;
}

template <std::size_t N>
const Generation* lookup(const Generation (&table)[N], int gen) {
  const auto* it =
      std::find_if(table, table + N, [&](const Generation& g) { return g.gen == gen; });
  return it == table + N ? nullptr : it;
}

// "11300H": generation 11, SKU 300. Four digits: "6700K" is generation 6, but "1165G7" and
// "1240P" (10th-13th generation laptop parts) are generations 11 and 12 with two-digit SKUs;
// first-generation names have three digits ("i7-920").
void parse_core_i(CpuName& c, const AlphaNum& m, std::optional<int> gen_word) {
  const std::string& d = m.digits;
  if (d.size() > 5) {
    c.notes.push_back("the model number " + d + " is longer than any Intel Core number");
    return;
  }
  const bool two_digit_gen = d.size() == 5 || (d.size() == 4 && d[0] == '1');
  c.generation = two_digit_gen ? (d[0] - '0') * 10 + (d[1] - '0') : d.size() == 4 ? d[0] - '0' : 1;
  c.sku = two_digit_gen ? d.substr(2) : d.size() == 4 ? d.substr(1) : d;
  if (c.sku.size() == 3 && d.size() > 3)
    c.sku_meaning = c.sku + ": the SKU: its first digit (" + c.sku.substr(0, 1) +
                    ") places it within the " + c.tier +
                    " line of this generation (higher is faster); the last two (" +
                    c.sku.substr(1) + ") tell variants apart";
  else
    c.sku_meaning = c.sku + ": the position within the " + c.tier +
                    " line of this generation (higher is faster)";
  const std::string letters = text::lower(m.suffix);
  const bool laptop = letters.find_first_of("hupgy") != std::string::npos;
  const bool ice_lake = c.generation == 10 && !letters.empty() && letters[0] == 'g';
  const Generation* g = (laptop && c.generation != 10) || ice_lake
                            ? lookup(kMobileGenerations, c.generation)
                            : nullptr;
  if (!g) g = lookup(kCoreGenerations, c.generation);
  if (g) set_generation(c, *g, ordinal(c.generation) + " generation Core");
  if (c.generation >= 12)
    c.notes.push_back(
        "12th generation and later mix performance and efficiency cores on most models");
  if (gen_word && *gen_word != c.generation)
    c.notes.push_back("the name says " + ordinal(*gen_word) + " Gen but the model number says " +
                      ordinal(c.generation));
}

void parse_core(CpuName& c, NameTokens& t, std::optional<int> gen_word) {
  c.family = "Core";
  const bool ultra = t.take("ultra");
  int tier_tok = -1;
  for (std::size_t i = 0; i < t.size() && tier_tok < 0; ++i) {
    const std::string& w = t[i].low;
    if (t[i].used) continue;
    if ((w.size() == 2 && (w[0] == 'i' || w[0] == 'm') &&
         std::string("3579").find(w[1]) != std::string::npos) ||
        (w.size() == 1 && std::string("3579").find(w[0]) != std::string::npos))
      tier_tok = static_cast<int>(i);
  }
  if (tier_tok >= 0) {
    NameToken& tier = t[static_cast<std::size_t>(tier_tok)];
    tier.used = true;
    const char level = tier.low.back();
    c.tier = ultra                  ? "Ultra " + std::string(1, level)
             : tier.low.size() == 1 ? "Core " + tier.low
                                    : tier.low;
    c.tier_meaning = tier.low[0] == 'm' ? "Core m: low-power chips for fanless laptops and tablets"
                                        : c.tier + ": " + tier_meaning(level);
  }
  if (ultra) c.family = "Core Ultra";
  const int model_tok = find_model_token(t);
  if (model_tok < 0) return;
  t[static_cast<std::size_t>(model_tok)].used = true;
  const AlphaNum m = split_alnum(t[static_cast<std::size_t>(model_tok)].low);
  c.model_number = m.digits;
  if (ultra || (tier_tok >= 0 && c.tier.starts_with("Core ") && m.digits.size() == 3)) {
    c.generation = m.digits[0] - '0';
    c.sku = m.digits.substr(1);
    c.sku_meaning =
        c.sku + ": the position within the " + c.tier + " line of this series (higher is faster)";
    const Generation* g =
        m.suffix == "v" && c.generation == 2 ? &kLunarLake : lookup(kUltraSeries, c.generation);
    if (g)
      set_generation(
          c, *g,
          std::string(ultra ? "Core Ultra" : "Core") + " Series " + std::to_string(c.generation));
  } else {
    parse_core_i(c, m, gen_word);
  }
  add_cpu_suffixes(c, text::upper(m.suffix), kCombined, kSingle);
}

void parse_xeon(CpuName& c, NameTokens& t) {
  c.family = "Xeon";
  static const SuffixMeaning kClasses[] = {
      {"platinum", "the top of the Xeon Scalable line: the most cores, up to 8 sockets"},
      {"gold", "mainstream 2-4 socket servers"},
      {"silver", "entry 2-socket servers"},
      {"bronze", "the entry line"}};
  for (const SuffixMeaning& k : kClasses) {
    if (!t.take(k.code)) continue;
    c.tier = text::capitalize(k.code);
    c.tier_meaning = c.tier + ": " + k.meaning;
  }
  for (const char* line : {"e3", "e5", "e7", "w", "w3", "w5", "w7", "w9", "max", "d"})
    if (c.tier.empty() && t.take(line)) c.tier = text::capitalize(line);
  const int model_tok = find_model_token(t);
  if (model_tok < 0) {
    c.notes.push_back("no model number: cloud VMs often report Xeons without one");
    return;
  }
  t[static_cast<std::size_t>(model_tok)].used = true;
  const AlphaNum m = split_alnum(t[static_cast<std::size_t>(model_tok)].low);
  c.model_number = m.digits;
  const std::string letters = text::upper(m.suffix);
  const std::string& d = m.digits;
  if (c.tier.size() == 2 && c.tier[0] == 'E') {  // E5-2690 v4
    int version = 1;
    for (int v = 1; v <= 6; ++v)
      if (t.take("v" + std::to_string(v))) version = v;
    c.generation = version;
    if (const Generation* g = lookup(kXeonE, version))
      set_generation(c, *g, "v" + std::to_string(version));
    c.tier_meaning = c.tier == "E3"   ? "E3: single-socket entry servers and workstations"
                     : c.tier == "E5" ? "E5: two-socket (E5-2xxx) and four-socket (E5-4xxx) servers"
                                      : "E7: four- to eight-socket servers";
    c.sku = d.substr(1);
    c.sku_meaning =
        d.substr(0, 1) + " = the number of sockets it scales to, " + c.sku + " = the SKU";
  } else if (d.size() == 4 && (c.tier == "Platinum" || c.tier == "Gold" || c.tier == "Silver" ||
                               c.tier == "Bronze")) {
    c.generation = d[1] - '0';  // Xeon Scalable: Platinum 8480+ is 4th generation
    if (const Generation* g = lookup(kScalable, c.generation))
      set_generation(c, *g, ordinal(c.generation) + " generation Xeon Scalable");
    c.sku = d.substr(2);
    c.sku_meaning = d.substr(0, 1) + " = the class (" + c.tier + "), " + d.substr(1, 1) +
                    " = the generation, " + c.sku + " = the SKU (higher: more cores or clocks)";
  } else if (c.tier.empty() && d.size() == 4 && d[0] == '6' && (letters == "P" || letters == "E")) {
    c.tier = "Xeon 6";
    c.generation = 6;
    const Generation g = letters == "P"
                             ? Generation{6, "2024", "Granite Rapids", "Redwood Cove", "Intel 3"}
                             : Generation{6, "2024", "Sierra Forest", "Crestmont", "Intel 3"};
    set_generation(c, g, std::string("Xeon 6 with ") + (letters == "P" ? "P-cores" : "E-cores"));
    c.sku = d.substr(1);
    return;
  } else if (c.tier == "Max") {
    set_generation(c, kScalable[3], "Xeon Max (Sapphire Rapids with HBM on the package)");
  }
  if (text::istarts_with(c.tier, "W")) c.tier_meaning = "Xeon W: workstation parts";
  add_cpu_suffixes(c, letters, {}, kXeonSuffixes);
}

}  // namespace

void parse_intel(CpuName& c, NameTokens& t) {
  c.vendor = "Intel";
  t.take("intel");
  std::optional<int> gen_word;
  for (std::size_t i = 0; i + 1 < t.size(); ++i) {
    const AlphaNum a = split_alnum(t[i].low);
    if (t[i].used || !a.prefix.empty() || !text::small_int(a.digits) || t[i + 1].low != "gen")
      continue;
    if (a.suffix == "st" || a.suffix == "nd" || a.suffix == "rd" || a.suffix == "th") {
      gen_word = text::small_int(a.digits);
      t[i].used = t[i + 1].used = true;
    }
  }
  const bool core_tier =
      t.find("i3") >= 0 || t.find("i5") >= 0 || t.find("i7") >= 0 || t.find("i9") >= 0;
  if (t.take("core") || core_tier) {  // "i9-12900KF" is a Core without the word
    parse_core(c, t, gen_word);
  } else if (t.take("xeon")) {
    parse_xeon(c, t);
  } else {
    for (const char* family : {"pentium", "celeron", "atom"})
      if (t.take(family)) c.family = text::capitalize(family);
    if (!c.family.empty()) c.tier_meaning = "a budget line, below Core i3";
  }
}

}  // namespace torchlet::hw
