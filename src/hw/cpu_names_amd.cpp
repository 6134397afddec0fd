// AMD names: Ryzen ("AMD Ryzen 7 7800X3D 8-Core Processor"), Ryzen AI, Threadripper and EPYC
// ("AMD EPYC 7763 64-Core Processor"), with AMD's model-number decoders for desktop, 2023+
// laptop parts and servers, as published on amd.com. Shared helpers live here too.
#include <algorithm>
#include <cctype>

#include "hw/cpu_names_detail.h"
#include "hw/text.h"

namespace torchlet::hw {
namespace {

struct Series {
  int digit;
  const char* years;
  const char* uarch;
  const char* codename;
  const char* process;
};
constexpr Series kRyzen[] = {{1, "2017", "Zen", "Summit Ridge", "14 nm"},
                             {2, "2018", "Zen+", "Pinnacle Ridge", "12 nm"},
                             {3, "2019", "Zen 2", "Matisse", "7 nm"},
                             {4, "2020", "Zen 2", "Renoir", "7 nm"},
                             {5, "2020-2021", "Zen 3", "Vermeer / Cezanne", "7 nm"},
                             {6, "2022", "Zen 3+", "Rembrandt", "6 nm"},
                             {7, "2022-2023", "Zen 4", "Raphael", "5 nm"},
                             {8, "2024", "Zen 4", "Phoenix / Hawk Point", "4 nm"},
                             {9, "2024", "Zen 5", "Granite Ridge", "4 nm"}};
// The third digit of 2023+ laptop parts (7x40U, 8x45HS) names the architecture.
constexpr Series kLaptopArch[] = {{1, "", "Zen+", "", "12 nm"},
                                  {2, "", "Zen 2", "Mendocino", "6 nm"},
                                  {3, "", "Zen 3+", "Rembrandt-R", "6 nm"},
                                  {4, "", "Zen 4", "Phoenix / Dragon Range", "4-5 nm"},
                                  {5, "", "Zen 5", "Strix Point", "4 nm"}};
constexpr Series kThreadripper[] = {
    {1, "2017", "Zen", "Whitehaven", "14 nm"},        {2, "2018", "Zen+", "Colfax", "12 nm"},
    {3, "2019-2020", "Zen 2", "Castle Peak", "7 nm"}, {5, "2022", "Zen 3", "Chagall", "7 nm"},
    {7, "2023", "Zen 4", "Storm Peak", "5 nm"},       {9, "2025", "Zen 5", "Shimada Peak", "4 nm"}};
constexpr Series kEpyc[] = {{1, "2017", "Zen", "Naples", "14 nm"},
                            {2, "2019", "Zen 2", "Rome", "7 nm"},
                            {3, "2021", "Zen 3", "Milan", "7 nm"},
                            {4, "2022-2023", "Zen 4", "Genoa / Bergamo / Siena", "5 nm"},
                            {5, "2024", "Zen 5", "Turin", "4 nm"}};

constexpr SuffixMeaning kRyzenCombined[] = {
    {"X3D",
     "3D V-Cache: extra L3 cache stacked on the chip (96 MB in all on a 7800X3D), which "
     "helps games and cache-bound work"},
    {"HX3D", "the highest-performance laptop part, with 3D V-Cache"},
    {"XT", "a higher-clocked refresh of the X part"},
    {"GE", "integrated graphics, 35 W low-power desktop part"},
    {"HS", "high-performance laptop part for thinner laptops (35 W)"},
    {"HX", "the highest-performance laptop part (55 W and up), unlocked"},
    {"WX", "workstation Threadripper: more memory channels and PCIe lanes"}};
constexpr SuffixMeaning kRyzenSingle[] = {
    {"X", "the higher-clocked version (high-end desktop on Threadripper)"},
    {"G", "integrated Radeon graphics (a desktop APU)"},
    {"F", "no integrated graphics"},
    {"E", "low-power desktop part"},
    {"U", "low-power laptop part (15-28 W)"},
    {"H", "high-performance laptop part (35-45 W)"},
    {"S", "low-power desktop part (older naming)"}};
constexpr SuffixMeaning kEpycSuffixes[] = {
    {"P", "single-socket only (priced lower)"},
    {"F", "frequency-optimised: fewer cores at higher clocks"},
    {"X", "3D V-Cache: extra stacked L3 cache (Milan-X, Genoa-X)"}};

const Series* lookup(const Series* begin, const Series* end, int digit) {
  const Series* it = std::find_if(begin, end, [&](const Series& s) { return s.digit == digit; });
  return it == end ? nullptr : it;
}

void set_series(CpuName& c, const Series& s, const std::string& label) {
  c.generation_meaning =
      label + (s.years[0] ? std::string(" (") + s.years + ")" : "") + ": " + s.uarch + " cores" +
      (s.codename[0] ? std::string(" (") + s.codename + ")" : "") + ", " + s.process;
  c.microarchitecture = s.uarch;
  c.codename = s.codename;
  c.process = s.process;
}

const char* ryzen_tier_meaning(char level) {
  switch (level) {
    case '3': return "entry level";
    case '5': return "mainstream";
    case '7': return "high performance";
    case '9': return "enthusiast: the most cores";
    default: return "";
  }
}

void parse_ryzen(CpuName& c, NameTokens& t) {
  const bool ai = t.take("ai");
  c.family = ai ? "Ryzen AI" : "Ryzen";
  for (const char* level : {"3", "5", "7", "9"}) {
    if (!t.take(level)) continue;
    c.tier = c.family + " " + level;
    c.tier_meaning = c.tier + ": " + ryzen_tier_meaning(level[0]);
    break;
  }
  const bool hx_word = ai && t.take("hx");
  if (ai && t.take("max"))
    add_part(c.suffixes, "Max", "the Strix Halo chip: a large integrated GPU and 256-bit memory");
  const int model_tok = find_model_token(t);
  if (model_tok < 0) return;
  t[static_cast<std::size_t>(model_tok)].used = true;
  const AlphaNum m = split_alnum(t[static_cast<std::size_t>(model_tok)].low);
  const std::string& d = m.digits;
  const std::string letters = text::upper(m.suffix);
  c.model_number = d;
  if (ai && d.size() == 3) {  // Ryzen AI 9 HX 370: the 300 series
    c.generation = d[0] - '0';
    c.sku = d.substr(1);
    set_series(c, Series{3, "2024", "Zen 5 + Zen 5c", "Strix Point", "4 nm"}, "Ryzen AI 300");
    c.generation_meaning += ", with an NPU";
    if (hx_word) add_part(c.suffixes, "HX", "the highest-performance laptop part");
  } else if (d.size() == 4) {
    c.generation = d[0] - '0';
    c.sku = d.substr(1);
    const bool laptop = letters.find_first_of("UH") != std::string::npos;
    const Series* arch = laptop && c.generation >= 7
                             ? lookup(std::begin(kLaptopArch), std::end(kLaptopArch), d[2] - '0')
                             : nullptr;
    if (arch) {
      set_series(c, *arch,
                 std::string("Ryzen ") + d[0] + "000 laptop series (" +
                     (d[0] == '7' ? "2023" : "2024") + ")");
      c.sku_meaning = std::string(1, d[0]) + " = the model year, " + d[1] + " = the segment, " +
                      d[2] + " = the architecture (" + arch->uarch + "), " + d[3] +
                      " = the feature level (5 is the higher one)";
    } else if (const Series* s = lookup(std::begin(kRyzen), std::end(kRyzen), c.generation)) {
      set_series(c, *s, std::string("the Ryzen ") + d[0] + "000 series");
      if ((c.generation == 2 && laptop) ||
          (c.generation == 3 && letters.find_first_of("GUH") != std::string::npos))
        c.notes.push_back("Ryzen " + std::string(1, d[0]) +
                          "000 APUs and laptop parts use the previous generation's cores");
      c.sku_meaning = std::string(1, d[1]) +
                      " = the performance level within the series (it follows the tier: " +
                      "higher is faster), " + d.substr(2) + " = the model within that level";
    }
  }
  add_cpu_suffixes(c, letters, kRyzenCombined, kRyzenSingle);
}

void parse_threadripper(CpuName& c, NameTokens& t) {
  c.family = "Ryzen Threadripper";
  c.tier = "Threadripper";
  c.tier_meaning = "high-end desktop and workstation: the most cores outside servers";
  const int model_tok = find_model_token(t);
  if (model_tok < 0) return;
  t[static_cast<std::size_t>(model_tok)].used = true;
  const AlphaNum m = split_alnum(t[static_cast<std::size_t>(model_tok)].low);
  c.model_number = m.digits;
  if (m.digits.size() == 4) {
    c.generation = m.digits[0] - '0';
    c.sku = m.digits.substr(1);
    c.sku_meaning = c.sku + ": the position in the series (higher: more cores)";
    if (const Series* s = lookup(std::begin(kThreadripper), std::end(kThreadripper), c.generation))
      set_series(c, *s, std::string("Threadripper ") + m.digits[0] + "000");
  }
  add_cpu_suffixes(c, text::upper(m.suffix), kRyzenCombined, kRyzenSingle);
}

void parse_epyc(CpuName& c, NameTokens& t) {
  c.family = "EPYC";
  const int model_tok = find_model_token(t);
  if (model_tok < 0) {
    c.notes.push_back(
        "no model number: virtual machines often mask it ('AMD EPYC' is what many "
        "cloud VMs on EPYC hosts report)");
    return;
  }
  t[static_cast<std::size_t>(model_tok)].used = true;
  const AlphaNum m = split_alnum(t[static_cast<std::size_t>(model_tok)].low);
  const std::string& d = m.digits;
  c.model_number = d;
  if (d.size() == 4) {
    static const SuffixMeaning kLines[] = {
        {"7", "the EPYC 7000 series (socket SP3, 1-2 sockets)"},
        {"9", "the EPYC 9000 series (socket SP5, 1-2 sockets)"},
        {"8", "the EPYC 8004 series (socket SP6, low power)"},
        {"4", "the EPYC 4004 series (socket AM5, entry servers)"},
        {"3", "the EPYC 3000 series (embedded)"}};
    c.tier = "EPYC " + d.substr(0, 1) + "000";
    for (const SuffixMeaning& l : kLines)
      if (d.substr(0, 1) == l.code) c.tier_meaning = d.substr(0, 1) + ": " + l.meaning;
    c.generation = d[3] - '0';
    c.sku = d.substr(1, 2);
    c.sku_meaning =
        c.sku + ": the performance level within the series (higher: more cores or clocks)";
    if (const Series* s = lookup(std::begin(kEpyc), std::end(kEpyc), c.generation))
      set_series(c, *s,
                 d.substr(3) + " (last digit) = the " + ordinal(c.generation) + " generation");
  }
  add_cpu_suffixes(c, text::upper(m.suffix), {}, kEpycSuffixes);
}

}  // namespace

std::string ordinal(int n) {
  const int tens = n % 100, ones = n % 10;
  const char* suffix = (tens >= 11 && tens <= 13) ? "th"
                       : ones == 1                ? "st"
                       : ones == 2                ? "nd"
                       : ones == 3                ? "rd"
                                                  : "th";
  return std::to_string(n) + suffix;
}

int find_model_token(const NameTokens& t) {
  for (std::size_t i = 0; i < t.size(); ++i)
    if (!t[i].used && !t[i].low.empty() && std::isdigit(static_cast<unsigned char>(t[i].low[0])))
      return static_cast<int>(i);
  return -1;
}

void add_cpu_suffixes(CpuName& c, const std::string& letters,
                      std::span<const SuffixMeaning> combined,
                      std::span<const SuffixMeaning> single) {
  if (letters.empty()) return;
  for (const SuffixMeaning& s : combined)
    if (letters == s.code) return add_part(c.suffixes, letters, s.meaning);
  if (letters.size() == 2 && letters[0] == 'G' &&
      std::isdigit(static_cast<unsigned char>(letters[1])))
    return add_part(
        c.suffixes, letters,
        "integrated graphics level " + letters.substr(1) + " (G7 is the largest Iris graphics)");
  for (char ch : letters) {
    const std::string code(1, ch);
    const auto s = std::find_if(single.begin(), single.end(),
                                [&](const SuffixMeaning& m) { return code == m.code; });
    if (s != single.end()) {
      add_part(c.suffixes, code, s->meaning);
    } else {
      c.unrecognized.push_back(code);
      c.notes.push_back("suffix letter '" + code + "' is not one torchlet knows");
    }
  }
}

void parse_amd(CpuName& c, NameTokens& t) {
  c.vendor = "AMD";
  t.take("amd");
  const bool pro = t.take("pro");
  if (t.take("ryzen")) {
    if (t.take("threadripper"))
      parse_threadripper(c, t);
    else
      parse_ryzen(c, t);
  } else if (t.take("threadripper")) {
    parse_threadripper(c, t);
  } else if (t.take("epyc")) {
    parse_epyc(c, t);
  } else if (t.take("athlon")) {
    c.family = "Athlon";
    c.tier_meaning = "a budget line, below Ryzen 3";
  }
  if (pro)
    add_part(c.suffixes, "PRO",
             "the business version: the same chip with management and security features");
}

}  // namespace torchlet::hw
