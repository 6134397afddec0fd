// parse_gpu_name: NVIDIA's GeForce, TITAN, Quadro and RTX workstation, data-center and Jetson
// names as drivers and users write them ("NVIDIA GeForce RTX 3080 Ti", "A100-SXM4-80GB",
// "Tesla T4"); other vendors by brand only. What each part means comes from gpu_meanings.cpp.
#include "hw/gpu_meanings.h"
#include "hw/name_tokens.h"
#include "hw/text.h"
#include "torchlet/hw/names.h"

namespace torchlet::hw {
namespace {

// The model number right after token i ("RTX 3080") or glued to it ("MX450"), marked used.
std::string take_number(NameTokens& t, std::size_t i, std::string_view prefix) {
  const std::string rest = t[i].low.substr(prefix.size());
  if (text::all_digits(rest)) return rest;
  if (!rest.empty()) return "";
  const int j = t.next_unused(static_cast<int>(i));
  if (j < 0 || !text::all_digits(t[static_cast<std::size_t>(j)].low)) return "";
  t[static_cast<std::size_t>(j)].used = true;
  return t[static_cast<std::size_t>(j)].low;
}

bool geforce_rtx_number(std::string_view n) {
  if (n.size() != 4) return false;
  const int gen = (n[0] - '0') * 10 + (n[1] - '0');
  const int tier = (n[2] - '0') * 10 + (n[3] - '0');
  return gen >= 20 && gen <= 50 && gen % 10 == 0 && tier >= 50 && tier <= 90 && tier % 10 == 0;
}

// GeForce RTX / GTX / GT / MX, with or without the word GeForce.
bool parse_geforce(GpuName& g, NameTokens& t) {
  if (t.find("titan") >= 0) return false;  // "GeForce GTX TITAN X" is a TITAN
  const bool geforce_word = t.take("geforce");
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t[i].used) continue;
    for (std::string_view prefix : {"rtx", "gtx", "gt", "mx"}) {
      if (!t[i].low.starts_with(prefix)) continue;
      const int next = t.next_unused(static_cast<int>(i));
      const std::string peek = t[i].low.size() > prefix.size() ? t[i].low.substr(prefix.size())
                               : next >= 0 ? t[static_cast<std::size_t>(next)].low
                                           : "";
      if (!text::all_digits(peek) || peek.size() > 4) break;
      if (prefix == "rtx" && !geforce_rtx_number(peek) && !geforce_word) return false;
      t[i].used = true;
      const std::string number = take_number(t, i, prefix);
      set_geforce_model(g, std::string(prefix), number);
      return true;
    }
  }
  if (geforce_word) g.brand = "GeForce";
  return geforce_word;
}

bool parse_titan(GpuName& g, NameTokens& t) {
  const int i = t.find("titan");
  if (i < 0) return false;
  t[static_cast<std::size_t>(i)].used = true;
  t.take("geforce");
  const bool gtx = t.take("gtx");
  const int j = t.next_unused(i);
  const std::string next = j >= 0 ? t[static_cast<std::size_t>(j)].low : "";
  std::string variant;
  if (next == "rtx" || next == "v" || next == "xp" || next == "z" || next == "black" ||
      next == "x") {
    t[static_cast<std::size_t>(j)].used = true;
    variant = t[static_cast<std::size_t>(j)].text;
  }
  const bool pascal = next == "x" && t.take("pascal");
  set_titan(g, variant, gtx, pascal);
  return true;
}

bool parse_quadro(GpuName& g, NameTokens& t) {
  const int i = t.find("quadro");
  if (i < 0) return false;
  t[static_cast<std::size_t>(i)].used = true;
  const int j = t.next_unused(i);
  std::string model;
  bool rtx = false;
  if (j >= 0 && t[static_cast<std::size_t>(j)].low == "rtx") {
    t[static_cast<std::size_t>(j)].used = true;
    rtx = true;
    model = take_number(t, static_cast<std::size_t>(j), "rtx");
  } else if (j >= 0 && !split_alnum(t[static_cast<std::size_t>(j)].low).digits.empty()) {
    t[static_cast<std::size_t>(j)].used = true;
    model = t[static_cast<std::size_t>(j)].text;
  }
  set_quadro(g, model, rtx);
  return true;
}

// RTX A6000, RTX 6000 Ada Generation, RTX PRO 6000 Blackwell, and a bare "RTX 6000".
bool parse_rtx_workstation(GpuName& g, NameTokens& t) {
  const int i = t.find("rtx");
  if (i < 0) return false;
  const int j = t.next_unused(i);
  if (j < 0) return false;
  NameToken& next = t[static_cast<std::size_t>(j)];
  t[static_cast<std::size_t>(i)].used = true;
  if (next.low == "pro") {
    next.used = true;
    const std::string number = take_number(t, static_cast<std::size_t>(j), "pro");
    set_rtx_pro(g, number, t.take("blackwell"));
    return true;
  }
  const AlphaNum a = split_alnum(next.low);
  if (a.prefix == "a" && a.digits.size() >= 3 && a.suffix.empty()) {
    next.used = true;
    set_rtx_a(g, next.text);
    return true;
  }
  if (a.prefix.empty() && a.digits.size() == 4 && a.suffix.empty()) {
    next.used = true;
    set_rtx_ada_or_ambiguous(g, next.low, t.take("ada"));
    return true;
  }
  t[static_cast<std::size_t>(i)].used = false;
  return false;
}

bool parse_datacenter(GpuName& g, NameTokens& t) {
  const bool tesla = t.take("tesla");
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t[i].used) continue;
    const AlphaNum a = split_alnum(t[i].low);
    if (a.digits.empty() || a.digits.size() > 3 || a.suffix.size() > 1) continue;
    if (set_datacenter(g, a, tesla)) {
      t[i].used = true;
      return true;
    }
  }
  if (tesla) g.brand = "Tesla";
  return tesla;
}

bool parse_jetson(GpuName& g, NameTokens& t) {
  bool any = false;
  std::string chip;
  for (const char* word : {"jetson", "agx", "nano", "nx", "nvgpu"}) any = t.take(word) || any;
  for (const char* word : {"orin", "xavier", "thor", "tegra"})
    if (t.take(word)) chip = word, any = true;
  if (chip == "tegra") t.take("x1");
  if (any) set_jetson(g, chip);
  return any;
}

// AMD, Intel and Apple GPUs: the brand only, and why CUDA does not apply.
void parse_other_vendor(GpuName& g, NameTokens& t) {
  std::string brand;
  for (const char* word : {"radeon", "instinct", "arc", "iris", "uhd"})
    if (brand.empty() && t.find(word) >= 0) brand = word;
  for (const char* word : {"amd", "ati", "intel", "apple", "radeon", "rx", "pro", "instinct", "arc",
                           "iris", "xe", "uhd", "graphics"}) {
    while (t.take(word)) {
    }
  }
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t[i].used || split_alnum(t[i].low).digits.empty()) continue;
    g.model = t[i].text;
    t[i].used = true;
    break;
  }
  set_other_vendor(g, brand);
}

// Records the suffix word at token i; false when it is not one.
bool read_suffix(GpuName& g, Suffixes& s, NameTokens& t, std::size_t i) {
  const std::string& w = t[i].low;
  const std::string& written = t[i].text;
  const AlphaNum a = split_alnum(w);
  bool* flag = w == "ti"                                   ? &s.ti
               : w == "super"                              ? &s.super
               : w == "d" && g.brand == "GeForce RTX"      ? &s.d
               : w == "laptop" || w == "mobile"            ? &s.laptop
               : w == "max-q"                              ? &s.max_q
               : w == "pcie"                               ? &s.pcie
               : w == "nvl"                                ? &s.nvl
               : w == "sff"                                ? &s.sff
               : w == "generation" && g.brand == "RTX Ada" ? &s.ada_generation
                                                           : nullptr;
  if (flag) {
    *flag = true;
    return true;
  }
  if (w.starts_with("sxm")) {
    s.sxm = written;
  } else if (w.starts_with("hbm")) {
    s.hbm = written;
  } else if (w == "server" || w == "workstation") {
    s.edition = written;
  } else if (w == "edition" && !s.edition.empty()) {
    s.edition += " Edition";
  } else if (a.prefix.empty() && a.suffix == "gb" && text::small_int(a.digits)) {
    g.memory_gb = text::small_int(a.digits);  // "80GB"
  } else if (w == "gb" && i > 0 && !t[i - 1].used && text::small_int(t[i - 1].low)) {
    g.memory_gb = text::small_int(t[i - 1].low);  // "80 GB"
    t[i - 1].used = true;
  } else {
    return w == "gpu" || w == "corporation" || w == "graphics";  // words that say nothing
  }
  return true;
}

void parse_suffixes(GpuName& g, NameTokens& t) {
  Suffixes s;
  for (std::size_t i = 0; i < t.size(); ++i)
    if (!t[i].used) t[i].used = read_suffix(g, s, t, i);
  if (s.max_q) {  // "with Max-Q Design"
    t.take("with");
    t.take("design");
  }
  set_suffix_meanings(g, s);
}

}  // namespace

GpuName parse_gpu_name(std::string_view input) {
  GpuName g;
  g.input = std::string(input);
  NameTokens t(input, {"max-q"});
  if (t.take("nvidia")) g.vendor = "NVIDIA";
  for (const char* word : {"amd", "ati", "radeon", "intel", "arc", "apple"}) {
    if (g.vendor.empty() && t.find(word) >= 0)
      g.vendor = std::string(word) == "intel" || std::string(word) == "arc" ? "Intel"
                 : std::string(word) == "apple"                             ? "Apple"
                                                                            : "AMD";
  }
  if (g.vendor == "AMD" || g.vendor == "Intel" || g.vendor == "Apple") {
    parse_other_vendor(g, t);
  } else {
    const bool nvidia = parse_geforce(g, t) || parse_titan(g, t) || parse_quadro(g, t) ||
                        parse_rtx_workstation(g, t) || parse_jetson(g, t) || parse_datacenter(g, t);
    if (nvidia) g.vendor = "NVIDIA";
    parse_suffixes(g, t);
  }
  g.unrecognized = t.unused();
  if (!g.recognized())
    g.notes.push_back(
        "not a GPU name torchlet recognises: expected words such as GeForce RTX, "
        "GTX, TITAN, Quadro, RTX A6000, Tesla, A100, H100 or a Radeon/Arc name");
  return g;
}

}  // namespace torchlet::hw
