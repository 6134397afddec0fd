// The CPU and GPU name parsers on a table of real names (as drivers, /proc/cpuinfo and users
// write them, ../shared/reference/hwinfo.md section 6 and the course), the table of known GPUs
// and its estimates against NVIDIA's published peaks, and names that must not crash.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "torchlet/hw/gpu_specs.h"
#include "torchlet/hw/names.h"

namespace torchlet::hw {
namespace {

std::vector<std::string> suffix_texts(const std::vector<NamePart>& parts) {
  std::vector<std::string> out;
  for (const auto& p : parts) out.push_back(p.text);
  return out;
}

struct GpuCase {
  const char* name;
  const char* brand;
  const char* form;
  int generation;
  const char* architecture;
  int tier;
  std::vector<std::string> suffixes;
  int memory_gb;    // 0: the name gives none
  const char* row;  // the data/gpus.csv row it matches, "" for none
};

// clang-format off
const GpuCase kGpus[] = {
    // The issue's examples and the course's cards.
    {"NVIDIA GeForce RTX 3080 Ti", "GeForce RTX", "desktop", 30, "Ampere", 80, {"Ti"}, 0, "GeForce RTX 3080 Ti"},
    {"RTX 4070 Ti SUPER", "GeForce RTX", "desktop", 40, "Ada Lovelace", 70, {"Ti SUPER"}, 0, "GeForce RTX 4070 Ti SUPER"},
    {"GTX 1660 SUPER", "GeForce GTX", "desktop", 16, "Turing", 60, {"SUPER"}, 0, "GeForce GTX 1660 SUPER"},
    {"RTX 3060 Laptop GPU", "GeForce RTX", "laptop", 30, "Ampere", 60, {"Laptop GPU"}, 0, "GeForce RTX 3060 Laptop GPU"},
    {"Tesla T4", "Tesla", "datacenter", 0, "Turing", 0, {}, 0, "Tesla T4"},
    {"NVIDIA A100-SXM4-80GB", "data center", "datacenter", 0, "Ampere", 0, {"SXM4", "80GB"}, 80, "A100 SXM4 80GB"},
    {"NVIDIA H200", "data center", "datacenter", 0, "Hopper", 0, {}, 0, "H200"},
    {"NVIDIA GeForce RTX 2060 SUPER", "GeForce RTX", "desktop", 20, "Turing", 60, {"SUPER"}, 0, "GeForce RTX 2060 SUPER"},
    {"NVIDIA GeForce RTX 3090 Ti", "GeForce RTX", "desktop", 30, "Ampere", 90, {"Ti"}, 0, "GeForce RTX 3090 Ti"},
    {"NVIDIA GeForce RTX 3070 Ti", "GeForce RTX", "desktop", 30, "Ampere", 70, {"Ti"}, 0, "GeForce RTX 3070 Ti"},
    {"NVIDIA GeForce RTX 3070", "GeForce RTX", "desktop", 30, "Ampere", 70, {}, 0, "GeForce RTX 3070"},
    {"NVIDIA GeForce RTX 4070", "GeForce RTX", "desktop", 40, "Ada Lovelace", 70, {}, 0, "GeForce RTX 4070"},
    {"NVIDIA GeForce RTX 4090", "GeForce RTX", "desktop", 40, "Ada Lovelace", 90, {}, 0, "GeForce RTX 4090"},
    {"NVIDIA GeForce RTX 4090 Laptop GPU", "GeForce RTX", "laptop", 40, "Ada Lovelace", 90, {"Laptop GPU"}, 0, "GeForce RTX 4090 Laptop GPU"},
    {"NVIDIA GeForce RTX 4090 D", "GeForce RTX", "desktop", 40, "Ada Lovelace", 90, {"D"}, 0, "GeForce RTX 4090 D"},
    {"NVIDIA GeForce RTX 4060 Ti", "GeForce RTX", "desktop", 40, "Ada Lovelace", 60, {"Ti"}, 0, "GeForce RTX 4060 Ti"},
    {"NVIDIA GeForce RTX 5090", "GeForce RTX", "desktop", 50, "Blackwell", 90, {}, 0, "GeForce RTX 5090"},
    {"NVIDIA GeForce RTX 5060 Ti", "GeForce RTX", "desktop", 50, "Blackwell", 60, {"Ti"}, 0, "GeForce RTX 5060 Ti"},
    {"GeForce RTX 5080 Laptop GPU", "GeForce RTX", "laptop", 50, "Blackwell", 80, {"Laptop GPU"}, 0, "GeForce RTX 5080 Laptop GPU"},
    {"NVIDIA GeForce RTX 2080 Ti", "GeForce RTX", "desktop", 20, "Turing", 80, {"Ti"}, 0, "GeForce RTX 2080 Ti"},
    {"NVIDIA GeForce RTX 2060 with Max-Q Design", "GeForce RTX", "laptop", 20, "Turing", 60, {"Max-Q"}, 0, "GeForce RTX 2060 (laptop)"},
    {"NVIDIA GeForce GTX 1080 Ti", "GeForce GTX", "desktop", 10, "Pascal", 80, {"Ti"}, 0, "GeForce GTX 1080 Ti"},
    {"GeForce GTX 1080 Ti", "GeForce GTX", "desktop", 10, "Pascal", 80, {"Ti"}, 0, "GeForce GTX 1080 Ti"},
    {"NVIDIA GeForce GTX 1060 6GB", "GeForce GTX", "desktop", 10, "Pascal", 60, {"6GB"}, 6, "GeForce GTX 1060 6GB"},
    {"NVIDIA GeForce GTX 1050 Ti with Max-Q Design", "GeForce GTX", "laptop", 10, "Pascal", 50, {"Ti", "Max-Q"}, 0, "GeForce GTX 1050 Ti (laptop)"},
    {"NVIDIA GeForce GTX 1650 with Max-Q Design", "GeForce GTX", "laptop", 16, "Turing", 50, {"Max-Q"}, 0, "GeForce GTX 1650 (laptop)"},
    {"NVIDIA GeForce GTX 1650", "GeForce GTX", "desktop", 16, "Turing", 50, {}, 0, "GeForce GTX 1650"},
    {"NVIDIA GeForce MX450", "GeForce MX", "laptop", 4, "Turing", 50, {}, 0, ""},
    {"Tesla V100-SXM2-16GB", "Tesla", "datacenter", 0, "Volta", 0, {"SXM2", "16GB"}, 16, "Tesla V100 SXM2 16GB"},
    {"Tesla V100-PCIE-32GB", "Tesla", "datacenter", 0, "Volta", 0, {"PCIe", "32GB"}, 32, "Tesla V100 PCIe 32GB"},
    {"A100-SXM4-40GB", "data center", "datacenter", 0, "Ampere", 0, {"SXM4", "40GB"}, 40, "A100 SXM4 40GB"},
    {"NVIDIA A100 80GB PCIe", "data center", "datacenter", 0, "Ampere", 0, {"PCIe", "80GB"}, 80, "A100 PCIe 80GB"},
    {"NVIDIA H100 80GB HBM3", "data center", "datacenter", 0, "Hopper", 0, {"HBM3", "80GB"}, 80, "H100 SXM5 80GB"},
    {"NVIDIA H100 PCIe", "data center", "datacenter", 0, "Hopper", 0, {"PCIe"}, 0, "H100 PCIe"},
    {"NVIDIA H100 NVL", "data center", "datacenter", 0, "Hopper", 0, {"NVL"}, 0, "H100 NVL"},
    {"NVIDIA B200", "data center", "datacenter", 0, "Blackwell", 0, {}, 0, "B200"},
    {"NVIDIA L4", "data center", "datacenter", 0, "Ada Lovelace", 0, {}, 0, "L4"},
    {"NVIDIA L40S", "data center", "datacenter", 0, "Ada Lovelace", 0, {"S"}, 0, "L40S"},
    {"NVIDIA A10G", "data center", "datacenter", 0, "Ampere", 0, {"G"}, 0, "A10G"},
    {"NVIDIA RTX A6000", "RTX A-series", "workstation", 0, "Ampere", 0, {}, 0, "RTX A6000"},
    {"NVIDIA RTX 6000 Ada Generation", "RTX Ada", "workstation", 0, "Ada Lovelace", 0, {"Ada Generation"}, 0, "RTX 6000 Ada Generation"},
    {"Quadro RTX 8000", "Quadro RTX", "workstation", 0, "Turing", 0, {}, 0, "Quadro RTX 8000"},
    {"NVIDIA RTX PRO 6000 Blackwell Server Edition", "RTX PRO", "workstation", 0, "Blackwell", 0, {"Server Edition"}, 0, "RTX PRO 6000 Blackwell Workstation Edition"},
    {"NVIDIA TITAN RTX", "TITAN", "desktop", 0, "Turing", 0, {}, 0, "TITAN RTX"},
    {"NVIDIA TITAN X (Pascal)", "TITAN", "desktop", 0, "Pascal", 0, {}, 0, "TITAN X (Pascal)"},
    {"NVIDIA TITAN V", "TITAN", "desktop", 0, "Volta", 0, {}, 0, "TITAN V"},
    {"Orin (nvgpu)", "Jetson", "embedded", 0, "Ampere", 0, {}, 0, ""},
    {"NVIDIA GB10", "DGX Spark", "desktop", 0, "Blackwell", 0, {}, 0, ""},
    {"RTX 6000", "RTX workstation", "workstation", 0, "", 0, {}, 0, ""},  // ambiguous on purpose
};
// clang-format on

TEST(HwNames, GpuNamesReadAsTheCourseReadsThem) {
  for (const GpuCase& c : kGpus) {
    SCOPED_TRACE(c.name);
    const GpuName g = parse_gpu_name(c.name);
    EXPECT_EQ(g.vendor, "NVIDIA");
    EXPECT_EQ(g.brand, c.brand);
    EXPECT_EQ(g.form, c.form);
    EXPECT_EQ(g.generation, c.generation);
    EXPECT_EQ(g.architecture, c.architecture);
    EXPECT_EQ(g.tier, c.tier);
    EXPECT_EQ(suffix_texts(g.suffixes), c.suffixes);
    EXPECT_EQ(g.memory_gb.value_or(0), c.memory_gb);
    EXPECT_TRUE(g.unrecognized.empty()) << "unrecognised: " << g.unrecognized.front();
    const KnownGpu* row = find_known_gpu(c.name);
    EXPECT_EQ(row ? row->name : "", c.row);
  }
}

TEST(HwNames, GpuMeaningsUseTheCoursesWords) {
  const GpuName ti = parse_gpu_name("NVIDIA GeForce RTX 3080 Ti");
  EXPECT_EQ(ti.generation_meaning,
            "30 = the RTX 30 series (2020): Ampere architecture (BF16 and TF32 "
            "tensor cores, 2:4 sparsity)");
  EXPECT_EQ(ti.tier_meaning, "xx80: high end: strong performance and plenty of VRAM");
  EXPECT_EQ(ti.suffixes[0].meaning, "an enhanced RTX 3080: between the RTX 3080 and the RTX 3090");
  EXPECT_EQ(parse_gpu_name("RTX 4070 Ti").suffixes[0].meaning,
            "an enhanced RTX 4070: between the RTX 4070 and the RTX 4080");
  EXPECT_EQ(parse_gpu_name("RTX 3090 Ti").suffixes[0].meaning,
            "an enhanced RTX 3090, above it: the top of the RTX 30 series");
  EXPECT_EQ(parse_gpu_name("RTX 4070 Ti SUPER").suffixes[0].meaning,
            "a refresh of the RTX 4070 Ti with more SMs: between the RTX 4070 Ti and the RTX 4080");
  EXPECT_NE(parse_gpu_name("GTX 1660 SUPER")
                .suffixes[0]
                .meaning.find("between the GTX 1660 and the GTX 1660 Ti"),
            std::string::npos);
  EXPECT_EQ(parse_gpu_name("RTX 4060").tier_meaning,
            "xx60: mainstream: good value, fine to start with or on a budget");
  EXPECT_EQ(parse_gpu_name("RTX 3050").tier_meaning,
            "xx50: entry level: limited for deep learning");
  EXPECT_EQ(parse_gpu_name("RTX 4090").tier_meaning,
            "xx90: the flagship of the generation: the most performance and the most VRAM");
  EXPECT_NE(parse_gpu_name("RTX 6000").notes.at(0).find("ambiguous"), std::string::npos);
}

struct CpuCase {
  const char* name;
  const char* vendor;
  const char* family;
  const char* tier;
  int generation;
  const char* codename;
  const char* model_number;
  std::vector<std::string> suffixes;
  double base_ghz;  // 0: the name gives none
  int cores;        // 0: the name gives none
};

// clang-format off
const CpuCase kCpus[] = {
    {"11th Gen Intel(R) Core(TM) i5-11300H @ 3.10GHz", "Intel", "Core", "i5", 11, "Tiger Lake", "11300", {"H"}, 3.1, 0},
    {"12th Gen Intel(R) Core(TM) i9-12900KF", "Intel", "Core", "i9", 12, "Alder Lake", "12900", {"K", "F"}, 0, 0},
    {"AMD Ryzen 7 7800X3D", "AMD", "Ryzen", "Ryzen 7", 7, "Raphael", "7800", {"X3D"}, 0, 0},
    {"AMD EPYC 7763", "AMD", "EPYC", "EPYC 7000", 3, "Milan", "7763", {}, 0, 0},
    {"Apple M2 Pro", "Apple", "M series", "Pro", 2, "", "M2", {}, 0, 0},
    {"12th Gen Intel(R) Core(TM) i7-12700K", "Intel", "Core", "i7", 12, "Alder Lake", "12700", {"K"}, 0, 0},
    {"13th Gen Intel(R) Core(TM) i9-13900K", "Intel", "Core", "i9", 13, "Raptor Lake", "13900", {"K"}, 0, 0},
    {"Intel(R) Core(TM) Ultra 9 185H", "Intel", "Core Ultra", "Ultra 9", 1, "Meteor Lake", "185", {"H"}, 0, 0},
    {"Intel(R) Core(TM) Ultra 7 155H", "Intel", "Core Ultra", "Ultra 7", 1, "Meteor Lake", "155", {"H"}, 0, 0},
    {"Intel(R) Core(TM) Ultra 9 285K", "Intel", "Core Ultra", "Ultra 9", 2, "Arrow Lake", "285", {"K"}, 0, 0},
    {"Intel(R) Core(TM) Ultra 7 258V", "Intel", "Core Ultra", "Ultra 7", 2, "Lunar Lake", "258", {"V"}, 0, 0},
    {"Intel(R) Core(TM) i7-6700K CPU @ 4.00GHz", "Intel", "Core", "i7", 6, "Skylake", "6700", {"K"}, 4.0, 0},
    {"Intel(R) Core(TM) i7-4770 CPU @ 3.40GHz", "Intel", "Core", "i7", 4, "Haswell", "4770", {}, 3.4, 0},
    {"Intel Core i9-13980HX (8P + 16E cores, 32 threads)", "Intel", "Core", "i9", 13, "Raptor Lake", "13980", {"HX"}, 0, 24},
    {"Intel(R) Core(TM) i5-1035G1", "Intel", "Core", "i5", 10, "Ice Lake", "1035", {"G1"}, 0, 0},
    {"Intel(R) Core(TM) i7-1165G7 @ 2.80GHz", "Intel", "Core", "i7", 11, "Tiger Lake", "1165", {"G7"}, 2.8, 0},
    {"12th Gen Intel(R) Core(TM) i5-1240P", "Intel", "Core", "i5", 12, "Alder Lake", "1240", {"P"}, 0, 0},
    {"Intel(R) Core(TM) i3-10100 CPU @ 3.60GHz", "Intel", "Core", "i3", 10, "Comet Lake", "10100", {}, 3.6, 0},
    {"Intel(R) Core(TM) i7-8550U CPU @ 1.80GHz", "Intel", "Core", "i7", 8, "Kaby Lake R / Whiskey Lake", "8550", {"U"}, 1.8, 0},
    {"Intel(R) Xeon(R) Platinum 8480+", "Intel", "Xeon", "Platinum", 4, "Sapphire Rapids", "8480", {"+"}, 0, 0},
    {"Intel(R) Xeon(R) Gold 6248R CPU @ 3.00GHz", "Intel", "Xeon", "Gold", 2, "Cascade Lake", "6248", {"R"}, 3.0, 0},
    {"Intel(R) Xeon(R) CPU E5-2690 v4 @ 2.60GHz", "Intel", "Xeon", "E5", 4, "Broadwell", "2690", {}, 2.6, 0},
    {"Intel(R) Xeon(R) CPU E3-1230 V2 @ 3.30GHz", "Intel", "Xeon", "E3", 2, "Ivy Bridge", "1230", {}, 3.3, 0},
    {"AMD Ryzen 5 1600X Six-Core Processor", "AMD", "Ryzen", "Ryzen 5", 1, "Summit Ridge", "1600", {"X"}, 0, 6},
    {"AMD Ryzen 9 7950X 16-Core Processor", "AMD", "Ryzen", "Ryzen 9", 7, "Raphael", "7950", {"X"}, 0, 16},
    {"AMD Ryzen 9 9950X 16-Core Processor", "AMD", "Ryzen", "Ryzen 9", 9, "Granite Ridge", "9950", {"X"}, 0, 16},
    {"AMD Ryzen 7 7840U w/ Radeon 780M Graphics", "AMD", "Ryzen", "Ryzen 7", 7, "Phoenix / Dragon Range", "7840", {"with Radeon 780M Graphics", "U"}, 0, 0},
    {"AMD Ryzen 9 7945HX", "AMD", "Ryzen", "Ryzen 9", 7, "Phoenix / Dragon Range", "7945", {"HX"}, 0, 0},
    {"AMD Ryzen Threadripper PRO 5995WX", "AMD", "Ryzen Threadripper", "Threadripper", 5, "Chagall", "5995", {"WX", "PRO"}, 0, 0},
    {"AMD Ryzen AI 9 HX 370", "AMD", "Ryzen AI", "Ryzen AI 9", 3, "Strix Point", "370", {"HX"}, 0, 0},
    {"AMD EPYC 9654 96-Core Processor", "AMD", "EPYC", "EPYC 9000", 4, "Genoa / Bergamo / Siena", "9654", {}, 0, 96},
    {"AMD EPYC", "AMD", "EPYC", "", 0, "", "", {}, 0, 0},
    {"Apple M1", "Apple", "M series", "base", 1, "", "M1", {}, 0, 0},
};
// clang-format on

TEST(HwNames, CpuNamesReadAsTheCourseReadsThem) {
  for (const CpuCase& c : kCpus) {
    SCOPED_TRACE(c.name);
    const CpuName n = parse_cpu_name(c.name);
    EXPECT_EQ(n.vendor, c.vendor);
    EXPECT_EQ(n.family, c.family);
    EXPECT_EQ(n.tier, c.tier);
    EXPECT_EQ(n.generation, c.generation);
    EXPECT_EQ(n.codename, c.codename);
    EXPECT_EQ(n.model_number, c.model_number);
    EXPECT_EQ(suffix_texts(n.suffixes), c.suffixes);
    EXPECT_DOUBLE_EQ(n.base_ghz.value_or(0.0), c.base_ghz);
    EXPECT_EQ(n.cores.value_or(0), c.cores);
    EXPECT_TRUE(n.unrecognized.empty()) << "unrecognised: " << n.unrecognized.front();
  }
}

TEST(HwNames, CpuMeaningsUseTheCoursesWords) {
  const CpuName i5 = parse_cpu_name("11th Gen Intel(R) Core(TM) i5-11300H @ 3.10GHz");
  EXPECT_EQ(i5.generation_meaning,
            "11th generation Core (2020-2021): Tiger Lake, Willow Cove cores, 10 nm SuperFin");
  EXPECT_EQ(i5.sku, "300");
  EXPECT_EQ(i5.sku_meaning,
            "300: the SKU: its first digit (3) places it within the i5 line of this "
            "generation (higher is faster); the last two (00) tell variants apart");
  EXPECT_EQ(i5.tier_meaning.substr(0, 14), "i5: mainstream");
  EXPECT_EQ(i5.suffixes[0].meaning.substr(0, 31), "high-performance laptop part (s");
  const CpuName kf = parse_cpu_name("12th Gen Intel(R) Core(TM) i9-12900KF");
  EXPECT_EQ(kf.suffixes[0].meaning, "unlocked: it can be overclocked, and runs higher clocks");
  EXPECT_EQ(kf.suffixes[1].meaning, "no integrated graphics: it needs a graphics card");
  const CpuName hx = parse_cpu_name("Intel Core i9-13980HX (8P + 16E cores, 32 threads)");
  EXPECT_EQ(hx.performance_cores, 8);
  EXPECT_EQ(hx.efficiency_cores, 16);
  EXPECT_EQ(parse_cpu_name("AMD EPYC 7763").sku_meaning,
            "76: the performance level within the series (higher: more cores or clocks)");
  EXPECT_NE(parse_cpu_name("AMD EPYC").notes.at(0).find("no model number"), std::string::npos);
}

TEST(HwNames, GuessesTheKindOfName) {
  EXPECT_EQ(guess_name_kind("RTX 3080 Ti"), NameKind::Gpu);
  EXPECT_EQ(guess_name_kind("Tesla T4"), NameKind::Gpu);
  EXPECT_EQ(guess_name_kind("NVIDIA H200"), NameKind::Gpu);
  EXPECT_EQ(guess_name_kind("A100"), NameKind::Gpu);
  EXPECT_EQ(guess_name_kind("AMD Radeon RX 7900 XTX"), NameKind::Gpu);
  EXPECT_EQ(guess_name_kind("AMD Ryzen 7 7840U w/ Radeon 780M Graphics"), NameKind::Cpu);
  EXPECT_EQ(guess_name_kind("AMD EPYC 7763"), NameKind::Cpu);
  EXPECT_EQ(guess_name_kind("Apple M2 Pro"), NameKind::Cpu);
  EXPECT_EQ(guess_name_kind("i7-6700K"), NameKind::Cpu);
  EXPECT_EQ(guess_name_kind("banana"), NameKind::Unknown);
}

TEST(HwNames, OtherVendorsAndUnknownWordsAreSaidSo) {
  const GpuName radeon = parse_gpu_name("AMD Radeon RX 7900 XTX");
  EXPECT_EQ(radeon.vendor, "AMD");
  EXPECT_EQ(radeon.unrecognized, std::vector<std::string>{"XTX"});
  EXPECT_NE(radeon.notes.at(0).find("CUDA does not run on it"), std::string::npos);
  const GpuName odd = parse_gpu_name("NVIDIA GeForce RTX 3080 Turbo");
  EXPECT_EQ(odd.generation, 30);
  EXPECT_EQ(odd.unrecognized, std::vector<std::string>{"Turbo"});
  const CpuName odd_cpu = parse_cpu_name("Intel Core i7-7700Q");
  EXPECT_EQ(odd_cpu.unrecognized, std::vector<std::string>{"Q"});
  EXPECT_FALSE(parse_gpu_name("banana").recognized());
  EXPECT_FALSE(parse_cpu_name("banana").recognized());
}

TEST(HwNames, ArbitraryInputNeverThrows) {
  const std::vector<std::string> pieces = {"NVIDIA",
                                           "GeForce",
                                           "RTX",
                                           "GTX",
                                           "3080",
                                           "Ti",
                                           "SUPER",
                                           "-",
                                           "(",
                                           ")",
                                           "@",
                                           "GHz",
                                           "Intel",
                                           "Core(TM)",
                                           "i5-",
                                           "11300H",
                                           "Ryzen",
                                           "7",
                                           "EPYC",
                                           "Xeon",
                                           "Platinum",
                                           "+",
                                           "A100",
                                           "SXM4",
                                           "80GB",
                                           "99999999999999999999999",
                                           "Laptop",
                                           "GPU",
                                           "Max-Q",
                                           "v4",
                                           "M2",
                                           "Apple",
                                           "Pro",
                                           "12th",
                                           "Gen",
                                           "TITAN",
                                           "X",
                                           "Quadro",
                                           "PRO",
                                           "16-Core",
                                           "8P",
                                           "\xE2\x84\xA2",
                                           "",
                                           " ",
                                           "Threadripper",
                                           "AI",
                                           "HX",
                                           "w/",
                                           "Radeon",
                                           "GB",
                                           "Tesla",
                                           "Orin",
                                           "RTX PRO"};
  std::mt19937 rng(7);
  for (int i = 0; i < 3000; ++i) {
    std::string name;
    const int n = static_cast<int>(rng() % 7);
    for (int k = 0; k < n; ++k) name += pieces[rng() % pieces.size()] + (rng() % 3 ? " " : "");
    SCOPED_TRACE(name);
    EXPECT_NO_THROW({
      parse_gpu_name(name);
      parse_cpu_name(name);
      guess_name_kind(name);
      explain_gpu(name);
    });
  }
}

TEST(HwGpuTable, EveryRowIsFoundByItsNamesAndParses) {
  ASSERT_GE(known_gpus().size(), 100u);
  for (const KnownGpu& k : known_gpus()) {
    SCOPED_TRACE(k.name);
    EXPECT_EQ(find_known_gpu(k.name), &k);
    EXPECT_EQ(find_known_gpu("NVIDIA " + k.name), &k);
    for (const std::string& alias : k.aliases) {
      EXPECT_EQ(find_known_gpu(alias), &k) << alias;
    }
    const GpuName g = parse_gpu_name(k.name);
    EXPECT_TRUE(g.recognized());
    EXPECT_EQ(g.architecture, gpu_arch(k.cc_major, k.cc_minor).name);
    EXPECT_TRUE(gpu_arch(k.cc_major, k.cc_minor).known);
    EXPECT_GE(k.year, 2016);
    EXPECT_GT(k.sm_count, 0);
    EXPECT_GT(k.boost_mhz, 1000);
    EXPECT_GT(k.vram_gb, 0);
    EXPECT_GT(k.bandwidth_gbs(), 90.0);
    EXPECT_FALSE(k.source.empty());
  }
}

TEST(HwGpuTable, CoversTheIssuesFamilies) {
  for (const char* name :
       {"GTX 1080", "GTX 1650", "RTX 2080", "RTX 3080", "RTX 4080", "RTX 5080", "RTX 2070 Mobile",
        "RTX 3070 Laptop GPU", "RTX 4070 Laptop GPU", "RTX 5070 Laptop GPU", "Tesla T4", "V100",
        "A100 40GB", "A100 80GB", "H100", "H200", "B200", "RTX A4000", "RTX 4000 Ada"})
    EXPECT_NE(find_known_gpu(name), nullptr) << name;
}

TEST(HwGpuTable, MatchingPicksVariantsAndRefusesAmbiguity) {
  std::vector<std::string> notes;
  EXPECT_EQ(find_known_gpu("RTX 3080")->name, "GeForce RTX 3080");
  EXPECT_EQ(find_known_gpu("rtx 3080 ti")->name, "GeForce RTX 3080 Ti");
  EXPECT_EQ(find_known_gpu("RTX 4060 Ti 16GB")->name, "GeForce RTX 4060 Ti");
  EXPECT_EQ(find_known_gpu("A100", &notes)->name, "A100 SXM4 40GB");
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("several variants"), std::string::npos);
  notes.clear();
  EXPECT_EQ(find_known_gpu("RTX 6000", &notes), nullptr);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("different generations"), std::string::npos);
  EXPECT_EQ(find_known_gpu("RTX 3060 Ti Laptop GPU"), nullptr);  // no such card
  EXPECT_EQ(find_known_gpu(""), nullptr);
}

// Published peaks (NVIDIA datasheets and whitepapers), within 1.5%: the formula with the
// table's SMs and boost clocks must reproduce them.
TEST(HwGpuTable, EstimatesMatchPublishedPeaks) {
  struct Peak {
    const char* name;
    double fp32, fp16_tensor, bandwidth;  // TFLOP/s, TFLOP/s dense, GB/s; 0: not checked
  };
  const Peak peaks[] = {{"RTX 6000 Ada Generation", 91.1, 0, 960},
                        {"GeForce RTX 3090", 35.6, 142, 936},
                        {"GeForce RTX 4090", 82.6, 330, 1008},
                        {"GeForce RTX 3080 Ti", 34.1, 0, 912},
                        {"A100 SXM4 40GB", 19.5, 312, 1555},
                        {"Tesla V100 SXM2 16GB", 15.7, 125, 900},
                        {"Tesla T4", 8.1, 65, 320},
                        {"H100 SXM5 80GB", 66.9, 0, 3350},
                        {"H200", 0, 0, 4800}};
  for (const Peak& p : peaks) {
    SCOPED_TRACE(p.name);
    const GpuExplanation e = explain_gpu(p.name);
    ASSERT_NE(e.known, nullptr);
    ASSERT_TRUE(e.peaks.has_value());
    if (p.fp32) {
      EXPECT_NEAR(*e.peaks->fp32_tflops, p.fp32, p.fp32 * 0.015);
    }
    if (p.fp16_tensor) {
      EXPECT_NEAR(*e.peaks->fp16_tensor_tflops, p.fp16_tensor, p.fp16_tensor * 0.015);
    }
    if (p.bandwidth) {
      EXPECT_NEAR(*e.peaks->bandwidth_gbs, p.bandwidth, p.bandwidth * 0.015);
    }
  }
  EXPECT_EQ(explain_gpu("RTX 4090").peaks->bf16_tensor_tflops,
            *explain_gpu("RTX 4090").peaks->fp16_tensor_tflops / 2);
  EXPECT_EQ(explain_gpu("A100").peaks->bf16_tensor_tflops,
            explain_gpu("A100").peaks->fp16_tensor_tflops);
  EXPECT_FALSE(explain_gpu("Tesla T4").peaks->bf16_tensor_tflops.has_value());
  EXPECT_FALSE(explain_gpu("GTX 1660 SUPER").peaks->fp16_tensor_tflops.has_value());
}

TEST(HwGpuTable, VramVerdictCountsParametersOnly) {
  const VramVerdict v = vram_verdict(12ull << 30);
  EXPECT_DOUBLE_EQ(v.fp16_inference_params, (12ull << 30) / 2.0);
  EXPECT_DOUBLE_EQ(v.adam_fp32_training_params, (12ull << 30) / 16.0);
  EXPECT_EQ(v.vram_class.substr(0, 11), "comfortable");
  EXPECT_EQ(vram_verdict(24ull << 30).vram_class.substr(0, 10), "enthusiast");
  EXPECT_EQ(vram_verdict(8ull << 30).vram_class.substr(0, 11), "entry level");
  EXPECT_EQ(vram_verdict(80ull << 30).vram_class.substr(0, 11), "data-center");
  EXPECT_EQ(explain_gpu("NVIDIA A100-SXM4-80GB").vram->bytes, 80ull << 30);
}

TEST(HwGpuTable, VersionsDecodeBothCudnnEncodings) {
  EXPECT_EQ(format_cuda_version(12040), "12.4");
  EXPECT_EQ(format_cuda_version(13000), "13.0");
  EXPECT_EQ(format_cudnn_version(7605), "7.6.5");
  EXPECT_EQ(format_cudnn_version(8907), "8.9.7");
  EXPECT_EQ(format_cudnn_version(90100), "9.1.0");
  EXPECT_EQ(format_cudnn_version(91600), "9.16.0");
}

}  // namespace
}  // namespace torchlet::hw
