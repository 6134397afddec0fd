// parse_cpu_name and guess_name_kind: the words every CPU name may carry (base clock, core
// counts, "Processor"), Apple's M chips, and the hand-off to the Intel and AMD parsers.
#include <algorithm>
#include <cctype>

#include "hw/cpu_names_detail.h"
#include "hw/text.h"

namespace torchlet::hw {
namespace {

int number_word(const std::string& w) {
  static const std::pair<const char*, int> kWords[] = {{"dual", 2},  {"quad", 4}, {"six", 6},
                                                       {"eight", 8}, {"ten", 10}, {"twelve", 12}};
  for (const auto& [word, n] : kWords)
    if (w == word) return n;
  return w.size() <= 3 ? text::small_int(w).value_or(0) : 0;
}

// "@ 3.10GHz", "16-Core Processor", "(8P + 16E cores, 32 threads)", "CPU", "with Radeon Graphics".
void parse_common_words(CpuName& c, NameTokens& t) {
  const bool core_split = t.find("+") >= 0;  // "8P + 16E"
  for (std::size_t i = 0; i < t.size(); ++i) {
    NameToken& tok = t[i];
    if (tok.used) continue;
    const std::string& w = tok.low;
    const AlphaNum a = split_alnum(w);
    const bool prev_number = i > 0 && !t[i - 1].used && number_word(t[i - 1].low) > 0;
    if (w == "core" && prev_number) {
      c.cores = number_word(t[i - 1].low);
      t[i - 1].used = tok.used = true;
    } else if (w.ends_with("ghz") && text::to_double(w.substr(0, w.size() - 3))) {
      c.base_ghz = text::to_double(w.substr(0, w.size() - 3));
      tok.used = true;
    } else if (w == "ghz" && i > 0 && text::to_double(t[i - 1].low)) {
      c.base_ghz = text::to_double(t[i - 1].low);
      t[i - 1].used = tok.used = true;
    } else if (a.prefix.empty() && text::small_int(a.digits) &&
               (a.suffix == "p" || a.suffix == "e") && core_split) {
      (a.suffix == "p" ? c.performance_cores : c.efficiency_cores) = text::small_int(a.digits);
      tok.used = true;
    } else if ((w == "threads" || w == "thread") && prev_number) {
      c.notes.push_back("the name gives " + t[i - 1].text + " threads");
      t[i - 1].used = tok.used = true;
    } else if (w == "radeon" && (t.find("with") >= 0 || t.find("w") >= 0)) {
      std::string gpu = "Radeon";  // "w/ Radeon 780M Graphics": the integrated GPU's model
      if (i + 1 < t.size() && split_alnum(t[i + 1].low).suffix == "m") {
        gpu += " " + t[i + 1].text;
        t[i + 1].used = true;
      }
      add_part(c.suffixes, "with " + gpu + " Graphics",
               "integrated " + gpu + " graphics on the chip");
      tok.used = true;
      for (const char* word : {"with", "w", "graphics"}) t.take(word);
    } else if (w == "@" || w == "cpu" || w == "processor" || w == "cores" || w == "+") {
      tok.used = true;
    }
  }
  if (c.performance_cores && c.efficiency_cores)
    c.cores = *c.performance_cores + *c.efficiency_cores;
}

void parse_apple(CpuName& c, NameTokens& t) {
  c.vendor = "Apple";
  c.family = "M series";
  t.take("apple");
  static const struct {
    int generation;
    const char* meaning;
  } kGenerations[] = {{1, "M1 (2020): TSMC N5 (5 nm), Firestorm P-cores + Icestorm E-cores"},
                      {2, "M2 (2022): TSMC N5P (5 nm), Avalanche P-cores + Blizzard E-cores"},
                      {3, "M3 (2023): TSMC N3B (3 nm)"},
                      {4, "M4 (2024): TSMC N3E (3 nm)"},
                      {5, "M5 (2025): TSMC N3P (3 nm)"}};
  for (std::size_t i = 0; i < t.size(); ++i) {
    const AlphaNum a = split_alnum(t[i].low);
    if (t[i].used || a.prefix != "m" || a.digits.size() != 1 || !a.suffix.empty()) continue;
    t[i].used = true;
    c.generation = a.digits[0] - '0';
    c.model_number = text::upper(t[i].low);
    for (const auto& g : kGenerations)
      if (g.generation == c.generation) c.generation_meaning = g.meaning;
    c.process = c.generation <= 2 ? "5 nm" : "3 nm";
    break;
  }
  static const SuffixMeaning kVariants[] = {
      {"pro", "Pro: more performance cores and GPU cores than the base chip, wider memory"},
      {"max", "Max: the Pro's CPU with twice the GPU cores and memory bandwidth"},
      {"ultra", "Ultra: two Max chips joined (UltraFusion): twice everything"}};
  c.tier = "base";
  c.tier_meaning = "the base chip (MacBook Air, Mac mini, iPad)";
  for (const SuffixMeaning& v : kVariants) {
    if (!t.take(v.code)) continue;
    c.tier = text::capitalize(v.code);
    c.tier_meaning = v.meaning;
  }
  c.notes.push_back("PyTorch trains on Apple GPUs through MPS, not CUDA; torchlet runs on its CPU");
}

bool has_word(const NameTokens& t, std::initializer_list<const char*> words) {
  return std::any_of(words.begin(), words.end(), [&](const char* w) { return t.find(w) >= 0; });
}

}  // namespace

CpuName parse_cpu_name(std::string_view input) {
  CpuName c;
  c.input = std::string(input);
  NameTokens t(input, {});
  parse_common_words(c, t);
  if (has_word(t, {"apple"}) || (t.size() <= 3 && has_word(t, {"m1", "m2", "m3", "m4", "m5"}))) {
    parse_apple(c, t);
  } else if (has_word(t, {"amd", "ryzen", "epyc", "threadripper", "athlon"})) {
    parse_amd(c, t);
  } else if (has_word(t, {"intel", "core", "xeon", "pentium", "celeron", "atom", "i3", "i5", "i7",
                          "i9"})) {
    parse_intel(c, t);
  }
  const std::vector<std::string> rest = t.unused();
  c.unrecognized.insert(c.unrecognized.begin(), rest.begin(), rest.end());
  if (!c.recognized())
    c.notes.push_back(
        "not a CPU name torchlet recognises: expected Intel Core/Core Ultra/Xeon, "
        "AMD Ryzen/Threadripper/EPYC or Apple M names");
  return c;
}

NameKind guess_name_kind(std::string_view name) {
  const NameTokens t(name, {"max-q"});
  // CPU family words first: "Ryzen 7 7840U w/ Radeon 780M Graphics" is a CPU.
  if (has_word(t, {"core", "xeon", "ryzen", "epyc", "threadripper", "athlon", "pentium", "celeron",
                   "processor", "cpu", "apple", "ghz", "gen", "i3", "i5", "i7", "i9"}))
    return NameKind::Cpu;
  if (has_word(t, {"geforce", "rtx", "gtx", "quadro", "tesla", "titan", "radeon", "arc", "nvidia",
                   "jetson", "laptop", "instinct", "sxm4", "sxm2", "sxm5", "pcie"}))
    return NameKind::Gpu;
  const CpuName cpu = parse_cpu_name(name);
  if (cpu.recognized()) return NameKind::Cpu;
  return parse_gpu_name(name).recognized() ? NameKind::Gpu : NameKind::Unknown;
}

}  // namespace torchlet::hw
