// The table of known GPUs: data/gpus.csv, compiled in as a string at build time (see
// src/CMakeLists.txt), parsed once on first use, and matched against names as users and
// drivers write them.
#include <algorithm>
#include <set>

#include "hw/text.h"
#include "torchlet/error.h"
#include "torchlet/hw/gpu_specs.h"

namespace torchlet::hw {
namespace {

constexpr const char* kGpusCsv =
#include "hw/gpus_csv.inc"
    ;

// Splits one CSV line; fields may be double-quoted (with "" for a quote inside).
std::vector<std::string> csv_fields(std::string_view line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      fields.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

int int_field(const std::string& s, int line) {
  const auto v = text::to_int(s);
  TORCHLET_ASSERT(v.has_value(), "data/gpus.csv line ", line, ": '", s, "' is not a number");
  return static_cast<int>(*v);
}

std::vector<KnownGpu> parse_table() {
  std::vector<KnownGpu> rows;
  int line_no = 0;
  bool header_seen = false;
  for (const std::string& raw : text::split(kGpusCsv, "\n")) {
    ++line_no;
    const std::string line = text::trim(raw);
    if (line.empty() || line[0] == '#') continue;
    if (!header_seen) {  // the column names
      header_seen = true;
      continue;
    }
    const std::vector<std::string> f = csv_fields(line);
    TORCHLET_ASSERT(f.size() == 14, "data/gpus.csv line ", line_no, " has ", f.size(),
                    " fields, expected 14");
    KnownGpu g;
    g.name = f[0];
    g.aliases = text::split(f[1], "|");
    g.form = f[2];
    g.year = int_field(f[3], line_no);
    g.chip = f[4];
    const std::vector<std::string> cc = text::split(f[5], ".");
    TORCHLET_ASSERT(cc.size() == 2, "data/gpus.csv line ", line_no, ": bad compute capability");
    g.cc_major = int_field(cc[0], line_no);
    g.cc_minor = int_field(cc[1], line_no);
    g.sm_count = int_field(f[6], line_no);
    g.boost_mhz = int_field(f[7], line_no);
    g.vram_gb = int_field(f[8], line_no);
    g.memory_type = f[9];
    g.bus_width_bits = int_field(f[10], line_no);
    const auto gbps = text::to_double(f[11]);
    TORCHLET_ASSERT(gbps.has_value(), "data/gpus.csv line ", line_no, ": bad memory_gbps");
    g.memory_gbps = *gbps;
    g.source = f[12];
    g.notes = f[13];
    rows.push_back(std::move(g));
  }
  return rows;
}

// The words of a name that identify a card, lower case, in a set: "NVIDIA GeForce RTX 3060
// Laptop GPU" and "rtx 3060 laptop" give the same set. Memory sizes become one word ("80gb").
std::set<std::string> match_words(std::string_view name) {
  std::string s = text::replace_all_ci(name, "with max-q design", " maxq ");
  s = text::replace_all_ci(s, "max-q", " maxq ");
  s = text::replace_all_ci(s, "(r)", " ");
  s = text::replace_all_ci(s, "(tm)", " ");
  static const std::set<std::string> kDropped = {"nvidia", "geforce", "tesla",       "gpu",
                                                 "with",   "design",  "corporation", "graphics"};
  std::vector<std::string> words;
  for (const std::string& w : text::split(text::lower(s), " -_,()/")) {
    if (kDropped.count(w)) continue;
    if (w == "gb" && !words.empty() && text::all_digits(words.back())) {
      words.back() += "gb";
      continue;
    }
    words.push_back(w == "mobile" ? "laptop" : w);
    if (w == "maxq") words.push_back("laptop");
  }
  return {words.begin(), words.end()};
}

// Words a query may carry beyond a row's without pointing at another card.
bool ignorable(const std::string& w) {
  static const std::set<std::string> kWords = {
      "maxq", "hbm2", "hbm2e", "hbm3", "hbm3e", "server", "workstation", "edition", "generation"};
  return kWords.count(w) || (w.size() > 2 && w.ends_with("gb") &&
                             text::all_digits(std::string_view(w).substr(0, w.size() - 2)));
}

bool subset(const std::set<std::string>& a, const std::set<std::string>& b) {
  return std::includes(b.begin(), b.end(), a.begin(), a.end());
}

std::string arch_of(const KnownGpu& g) { return gpu_arch(g.cc_major, g.cc_minor).name; }

}  // namespace

std::span<const KnownGpu> known_gpus() {
  static const std::vector<KnownGpu> rows = parse_table();
  return rows;
}

const KnownGpu* find_known_gpu(std::string_view name, std::vector<std::string>* notes) {
  const std::set<std::string> query = match_words(name);
  if (query.empty()) return nullptr;
  // Pass 1: a row (or alias) all of whose words are in the query, the query adding only
  // ignorable words; the row with the most words wins ("RTX 3080 Ti" over "RTX 3080").
  const KnownGpu* best = nullptr;
  std::size_t best_size = 0;
  for (const KnownGpu& g : known_gpus()) {
    std::vector<std::string> spellings = g.aliases;
    spellings.push_back(g.name);
    for (const std::string& spelling : spellings) {
      const std::set<std::string> row = match_words(spelling);
      if (!subset(row, query) || row.size() <= best_size) continue;
      const bool rest_ignorable = std::all_of(
          query.begin(), query.end(), [&](const auto& w) { return row.count(w) || ignorable(w); });
      if (rest_ignorable) best = &g, best_size = row.size();
    }
  }
  if (best) return best;
  // Pass 2: the query is part of a row's name ("A100", "RTX 6000 Ada"): fine when every such
  // row has the same architecture (variants of one card), ambiguous otherwise.
  std::vector<const KnownGpu*> candidates;
  for (const KnownGpu& g : known_gpus())
    if (subset(query, match_words(g.name))) candidates.push_back(&g);
  if (candidates.empty()) return nullptr;
  std::vector<std::string> names;
  for (const KnownGpu* g : candidates) names.push_back(g->name);
  const bool one_arch = std::all_of(candidates.begin(), candidates.end(), [&](const auto* g) {
    return arch_of(*g) == arch_of(*candidates.front());
  });
  if (!one_arch) {
    if (notes)
      notes->push_back("the name fits cards of different generations (" + text::join(names, ", ") +
                       "): give the full name");
    return nullptr;
  }
  if (notes && candidates.size() > 1)
    notes->push_back("the name fits several variants (" + text::join(names, ", ") +
                     "); showing the first");
  return candidates.front();
}

}  // namespace torchlet::hw
