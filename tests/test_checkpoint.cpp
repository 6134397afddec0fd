// nn::save / nn::load and the safetensors reader: round trips (weights, predictions, dtypes,
// an independent Python reader), every kind of damaged file with its message pinned, and a
// save killed with SIGKILL at random moments, which must always leave a loadable file.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <thread>

#include "cli_runner.h"
#include "testing.h"
#include "torchlet/nn/checkpoint.h"

namespace torchlet {
namespace {

namespace fs = std::filesystem;
using testing::error_of;
using testing::parameter_values;
using testing::read_text;
using testing::scratch_dir;
using testing::small_mlp;

// A safetensors file from its header text and data.
std::string file_bytes(const std::string& header, const std::string& data = "") {
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((header.size() >> (8 * i)) & 0xff);
  return out + header + data;
}

void write_bytes(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// The message read_safetensors throws for a file holding `bytes`.
std::string read_error(const fs::path& dir, const std::string& bytes) {
  write_bytes(dir / "bad.safetensors", bytes);
  return error_of([&] { nn::read_safetensors((dir / "bad.safetensors").string()); });
}

TEST(Checkpoint, SaveThenLoadGivesIdenticalWeightsAndPredictions) {
  const auto dir = scratch_dir();
  const std::string path = (dir / "model.safetensors").string();
  auto saved = small_mlp(1);
  nn::save(*saved, path, {{"classes", "[\"a\",\"b\",\"c\"]"}, {"epochs", "20"}});
  auto loaded = small_mlp(2);
  ASSERT_NE(parameter_values(*saved), parameter_values(*loaded));
  const nn::Metadata metadata = nn::load(*loaded, path);
  EXPECT_EQ(metadata, (nn::Metadata{{"classes", "[\"a\",\"b\",\"c\"]"}, {"epochs", "20"}}));
  EXPECT_EQ(parameter_values(*saved), parameter_values(*loaded));  // bit for bit
  const Tensor x = testing::random_tensor({9, 4}, 3);
  EXPECT_EQ((*saved)(x).to_vector<float>(), (*loaded)(x).to_vector<float>());
  for (const Tensor& p : loaded->parameters()) EXPECT_TRUE(p.requires_grad());
}

TEST(Checkpoint, FileLayoutIsSafetensors) {
  const auto dir = scratch_dir();
  const std::string path = (dir / "model.safetensors").string();
  nn::save(*small_mlp(1), path, {{"k", "v"}});
  const std::string bytes = read_text(path);
  uint64_t n = 0;
  for (int i = 0; i < 8; ++i) n |= uint64_t{static_cast<unsigned char>(bytes[i])} << (8 * i);
  EXPECT_EQ(n % 8, 0u);  // the data starts 8-byte aligned
  const auto header = nlohmann::json::parse(bytes.substr(8, n));
  EXPECT_EQ(header["__metadata__"], nlohmann::json({{"k", "v"}}));
  EXPECT_EQ(header["0.weight"]["dtype"], "F32");
  EXPECT_EQ(header["0.weight"]["shape"], nlohmann::json({7, 4}));
  EXPECT_EQ(header["0.weight"]["data_offsets"], nlohmann::json({0, 112}));
  EXPECT_EQ(header["2.bias"]["data_offsets"], nlohmann::json({224, 236}));
  EXPECT_EQ(bytes.size(), 8 + n + (7 * 4 + 7 + 3 * 7 + 3) * 4);
}

TEST(Checkpoint, Int64ScalarsAndEmptyTensorsRoundTrip) {
  const auto dir = scratch_dir();
  const std::string path = (dir / "t.safetensors").string();
  const nn::NamedTensors tensors{
      {"ids", tensor(std::vector<int64_t>{3, -1, int64_t{1} << 40}, {3})},
      {"scalar", tensor({2.5f}, Shape{})},
      {"empty", zeros({0, 5})},
      {"cube", testing::random_tensor({2, 3, 1}, 4)}};
  nn::write_safetensors(path, tensors);
  const nn::Safetensors read = nn::read_safetensors(path);
  ASSERT_EQ(read.tensors.size(), 4u);
  EXPECT_TRUE(read.metadata.empty());
  for (std::size_t i = 0; i < 4; ++i) {
    const auto& [name, t] = read.tensors[i];
    EXPECT_EQ(name, tensors[i].first);
    EXPECT_EQ(t.shape(), tensors[i].second.shape()) << name;
    EXPECT_EQ(t.dtype(), tensors[i].second.dtype()) << name;
    EXPECT_EQ(t.str(), tensors[i].second.str()) << name;
  }
  EXPECT_EQ(read.tensors[0].second.to_vector<int64_t>(),
            (std::vector<int64_t>{3, -1, int64_t{1} << 40}));
}

TEST(Checkpoint, AnIndependentPythonReaderSeesTheSameValues) {
  if (!fs::exists("/usr/bin/python3")) GTEST_SKIP() << "no /usr/bin/python3";
  const auto dir = scratch_dir();
  const std::string path = (dir / "model.safetensors").string();
  auto model = small_mlp(5, 129);
  const std::vector<double> wide{0.1, -1.0 / 3.0, 1e-300};  // none of them a float32
  nn::write_safetensors(path,
                        {{"fc.weight", model->parameters()[0]},
                         {"steps", tensor({7, -8}, {2})},
                         {"wide", tensor(wide, {3})}},
                        {{"torchlet_version", "x"}});
  std::string out;
  FILE* pipe = popen(
      ("/usr/bin/python3 " TORCHLET_FIXTURES_DIR "/read_safetensors.py '" + path + "'").c_str(),
      "r");
  ASSERT_NE(pipe, nullptr);
  char buffer[4096];
  for (std::size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.append(buffer, n);
  ASSERT_EQ(pclose(pipe), 0) << out;
  const auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["metadata"], nlohmann::json({{"torchlet_version", "x"}}));
  EXPECT_EQ(j["tensors"]["fc.weight"]["shape"], nlohmann::json({129, 4}));
  EXPECT_EQ(j["tensors"]["fc.weight"]["values"].get<std::vector<float>>(),
            model->parameters()[0].to_vector<float>());
  EXPECT_EQ(j["tensors"]["steps"]["dtype"], "I64");
  EXPECT_EQ(j["tensors"]["steps"]["values"], nlohmann::json({7, -8}));
  EXPECT_EQ(j["tensors"]["wide"]["dtype"], "F64");
  EXPECT_EQ(j["tensors"]["wide"]["values"].get<std::vector<double>>(), wide);
}

TEST(Checkpoint, Float64ModelsRoundTripBitForBit) {
  const auto dir = scratch_dir();
  const std::string path = (dir / "model.safetensors").string();
  auto saved = small_mlp(1);
  saved->to(kFloat64);
  for (Tensor p : saved->parameters()) {
    NoGradGuard no_grad;
    p.copy_(p + full(p.shape(), 1e-12, kFloat64));  // below float32's resolution near 0.1-1
  }
  nn::save(*saved, path);
  auto loaded = small_mlp(2);
  loaded->to(kFloat64);
  nn::load(*loaded, path);
  const std::vector<Tensor> a = saved->parameters(), b = loaded->parameters();
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(b[i].dtype(), kFloat64);
    EXPECT_EQ(a[i].to_vector<double>(), b[i].to_vector<double>());
  }
  const nn::Safetensors read = nn::read_safetensors(path);
  EXPECT_EQ(read.tensors[0].second.dtype(), kFloat64);
  // A float32 model refuses the float64 file by name, as for any dtype mismatch.
  auto narrow = small_mlp(3);
  EXPECT_THROW(nn::load(*narrow, path), Error);
}

TEST(Checkpoint, TruncatedFilesAreRefusedWhereverTheyEnd) {
  const auto dir = scratch_dir();
  nn::save(*small_mlp(1), (dir / "good.safetensors").string());
  const std::string good = read_text(dir / "good.safetensors");
  uint64_t n = 0;
  for (int i = 0; i < 8; ++i) n |= uint64_t{static_cast<unsigned char>(good[i])} << (8 * i);
  const std::string path = (dir / "bad.safetensors").string();
  EXPECT_EQ(read_error(dir, ""), path +
                                     ": Expected a safetensors file (an 8-byte header length, "
                                     "a JSON header, then data), but the file has only 0 bytes");
  EXPECT_EQ(read_error(dir, good.substr(0, 5)),
            path +
                ": Expected a safetensors file (an 8-byte header length, a JSON header, then "
                "data), but the file has only 5 bytes");
  for (std::size_t cut : {std::size_t{8}, std::size_t{30}, std::size_t(8 + n - 1)}) {
    EXPECT_EQ(read_error(dir, good.substr(0, cut)),
              path + ": Expected a header length of at most " + std::to_string(cut - 8) +
                  " bytes (the file's size after the length), but got " + std::to_string(n) +
                  " (a truncated file, or not a safetensors file)")
        << cut;
  }
  EXPECT_EQ(read_error(dir, good.substr(0, 8 + n)),
            path +
                ": tensor '0.weight': Expected data_offsets within the 0 bytes of data after "
                "the header, but got [0,112] (a truncated file?)");
  EXPECT_EQ(read_error(dir, good.substr(0, good.size() - 1)),
            path +
                ": tensor '2.bias': Expected data_offsets within the 235 bytes of data after "
                "the header, but got [224,236] (a truncated file?)");
  for (std::size_t cut = 0; cut < good.size(); cut += 7)  // and nothing crashes anywhere
    EXPECT_NE(read_error(dir, good.substr(0, cut)), "(no error)") << cut;
}

TEST(Checkpoint, HeaderLengthLargerThanTheFile) {
  const auto dir = scratch_dir();
  std::string bytes = file_bytes("{}");
  bytes[5] = 1;  // 2^40 + 2
  EXPECT_EQ(read_error(dir, bytes),
            (dir / "bad.safetensors").string() +
                ": Expected a header length of at most 2 bytes (the file's size after the "
                "length), but got 1099511627778 (a truncated file, or not a safetensors file)");
}

TEST(Checkpoint, HeaderThatIsNotAJsonObject) {
  const auto dir = scratch_dir();
  const std::string path = (dir / "bad.safetensors").string();
  EXPECT_EQ(read_error(dir, file_bytes("{\"a\": ")),
            path +
                ": Expected a JSON header, but it is not valid JSON (byte 7 of the 6-byte "
                "header)");
  EXPECT_EQ(read_error(dir, file_bytes("\xff\xfe")),
            path +
                ": Expected a JSON header, but it is not valid JSON (byte 1 of the 2-byte "
                "header)");
  // Found by fuzz/fuzz_checkpoint.cpp: the JSON library throws out_of_range for this number.
  EXPECT_EQ(read_error(dir, file_bytes(R"({"t": {"dtype": "F32", "shape": [1E400]}})")),
            path +
                ": Expected a JSON header, but it is not valid JSON (number overflow parsing "
                "'1E400')");
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_EQ(read_error(dir, file_bytes(deep)),
            path + ": Expected the JSON header to be an object, but got array");
  EXPECT_EQ(read_error(dir, file_bytes("[1, 2]")),
            path + ": Expected the JSON header to be an object, but got array");
  EXPECT_EQ(read_error(dir, file_bytes(R"({"a": 1})")),
            path +
                ": tensor 'a': Expected an object with dtype, shape and data_offsets, but got "
                "number");
  EXPECT_EQ(read_error(dir, file_bytes(R"({"a": {"dtype": "F32", "shape": []}})")),
            path + ": tensor 'a': Expected a 'data_offsets' entry, but it is missing");
  EXPECT_EQ(read_error(dir, file_bytes(R"({"__metadata__": {"epochs": 5}})")),
            path + ": Expected string values in '__metadata__', but 'epochs' is 5");
  EXPECT_EQ(read_error(dir, file_bytes(R"({"__metadata__": []})")),
            path + ": Expected '__metadata__' to be an object of strings, but got array");
  const std::string a = R"("a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]})";
  EXPECT_EQ(read_error(dir, file_bytes("{" + a + ", " + a + "}", "abcd")),
            path + ": Expected each name once in the header, but 'a' appears more than once");
}

std::string one_tensor(const std::string& dtype, const std::string& shape,
                       const std::string& offsets) {
  return file_bytes(R"({"t": {"dtype": )" + dtype + R"(, "shape": )" + shape +
                        R"(, "data_offsets": )" + offsets + "}}",
                    std::string(8, 'x'));
}

TEST(Checkpoint, UnknownDtypesAndImpossibleShapes) {
  const auto dir = scratch_dir();
  const std::string where = (dir / "bad.safetensors").string() + ": tensor 't': ";
  EXPECT_EQ(read_error(dir, one_tensor("\"F16\"", "[4]", "[0, 8]")),
            where + "Expected dtype F32, F64 or I64 (those torchlet reads), but got \"F16\"");
  EXPECT_EQ(read_error(dir, one_tensor("3", "[2]", "[0, 8]")),
            where + "Expected the dtype as a string, but got 3");
  EXPECT_EQ(read_error(dir, one_tensor("\"F32\"", "[3]", "[0, 8]")),
            where +
                "Expected data_offsets spanning 12 bytes (shape [3] of F32), but got [0,8] "
                "(8 bytes)");
  EXPECT_EQ(read_error(dir, one_tensor("\"I64\"", "[2]", "[0, 8]")),
            where +
                "Expected data_offsets spanning 16 bytes (shape [2] of I64), but got [0,8] "
                "(8 bytes)");
  EXPECT_EQ(read_error(dir, one_tensor("\"F32\"", "[-2]", "[0, 8]")),
            where + "Expected sizes >= 0 in its shape, but got [-2]");
  EXPECT_EQ(read_error(dir, one_tensor("\"F32\"", "[2.0]", "[0, 8]")),
            where + "Expected sizes >= 0 in its shape, but got [2.0]");
  EXPECT_EQ(read_error(dir, one_tensor("\"F32\"", "[1,1,1,1,1,1,2]", "[0, 8]")),
            where + "Expected the shape as a list of at most 6 sizes, but got [1,1,1,1,1,1,2]");
  EXPECT_EQ(read_error(dir, one_tensor("\"F32\"", "[4294967296, 4294967296, 0]", "[0, 8]")),
            where +
                "Expected a shape of fewer than 2^63 elements, but got "
                "[4294967296,4294967296,0]");
  EXPECT_EQ(read_error(dir, one_tensor("\"F32\"", "[2]", "[8, 0]")),
            where + "Expected data_offsets [begin, end] with 0 <= begin <= end, but got [8,0]");
  EXPECT_EQ(read_error(dir, one_tensor("\"F32\"", "[2]", "[0]")),
            where + "Expected data_offsets [begin, end] with 0 <= begin <= end, but got [0]");
}

TEST(Checkpoint, OverlappingOrUnclaimedBytes) {
  const auto dir = scratch_dir();
  const std::string path = (dir / "bad.safetensors").string();
  const auto two = [](const std::string& a, const std::string& b, std::size_t data) {
    return file_bytes(R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": )" + a +
                          R"(}, "b": {"dtype": "F32", "shape": [2], "data_offsets": )" + b + "}}",
                      std::string(data, 'x'));
  };
  EXPECT_EQ(read_error(dir, two("[0, 8]", "[4, 12]", 12)),
            path + ": Expected tensors in separate bytes, but 'a' [0, 8) and 'b' [4, 12) overlap");
  EXPECT_EQ(read_error(dir, two("[0, 8]", "[0, 8]", 8)),
            path + ": Expected tensors in separate bytes, but 'a' [0, 8) and 'b' [0, 8) overlap");
  EXPECT_EQ(read_error(dir, two("[0, 8]", "[12, 20]", 20)),
            path +
                ": Expected every data byte to belong to a tensor, but bytes [8, 12) belong "
                "to none");
  EXPECT_EQ(read_error(dir, two("[0, 8]", "[8, 16]", 17)),
            path +
                ": Expected every data byte to belong to a tensor, but bytes [16, 17) belong "
                "to none");
}

// The format allows a 100 MB header: parsing must not scan the header (or the entries read so
// far) once per tensor. 100,000 tensors took minutes when each key was searched linearly.
TEST(Checkpoint, HeaderOfManyTensorsParsesAndWritesInLinearTime) {
  constexpr int kTensors = 100000;
  std::string header = "{";
  std::string data;
  for (int i = 0; i < kTensors; ++i) {
    const float value = static_cast<float>(i);
    header += (i ? ",\"t" : "\"t") + std::to_string(i) + "\":{\"dtype\":\"F32\",\"shape\":[1]," +
              "\"data_offsets\":[" + std::to_string(data.size()) + "," +
              std::to_string(data.size() + 4) + "]}";
    data.append(reinterpret_cast<const char*>(&value), 4);
  }
  header += "}";
  std::string bytes(8, '\0');
  for (std::size_t i = 0; i < 8; ++i)
    bytes[i] = static_cast<char>((uint64_t{header.size()} >> (8 * i)) & 0xff);
  const nn::Safetensors file = nn::parse_safetensors(bytes + header + data, "many.safetensors");
  ASSERT_EQ(file.tensors.size(), static_cast<std::size_t>(kTensors));
  EXPECT_EQ(file.tensors[77777].first, "t77777");  // in the order of their data
  EXPECT_EQ(file.tensors[77777].second.item(), 77777.0f);
  const auto dir = scratch_dir();
  nn::write_safetensors((dir / "copy.safetensors").string(), file.tensors);
  EXPECT_EQ(nn::read_safetensors((dir / "copy.safetensors").string()).tensors.size(),
            static_cast<std::size_t>(kTensors));
}

// The fuzzer's seed of many tensors (fuzz/corpus/checkpoint) is a valid file: mutations of it
// exercise the header parser on many entries, not only its first error.
TEST(Checkpoint, TheFuzzSeedOfManyTensorsIsAValidFile) {
  const std::string path =
      TORCHLET_FIXTURES_DIR "/../../fuzz/corpus/checkpoint/many-tensors.safetensors";
  const nn::Safetensors file = nn::read_safetensors(path);
  ASSERT_EQ(file.tensors.size(), 1000u);
  EXPECT_EQ(file.tensors[999].first, "layer999.w");
  EXPECT_EQ(file.tensors[999].second.to_vector<float>(), (std::vector<float>{999, -999}));
}

TEST(Checkpoint, LoadListsMissingUnexpectedAndMisshapedParametersAndChangesNothing) {
  const auto dir = scratch_dir();
  const std::string path = (dir / "m.safetensors").string();
  auto model = small_mlp(1);
  const auto before = parameter_values(*model);
  nn::write_safetensors(path, {{"0.weight", zeros({8, 4})},
                               {"0.bias", zeros({7})},
                               {"2.bias", tensor({1, 2, 3}, {3})},
                               {"extra", zeros({1})}});
  EXPECT_EQ(error_of([&] { nn::load(*model, path); }),
            path +
                ": Expected the module's 4 parameters, but the file's 4 tensors do not "
                "match; missing: '2.weight'; unexpected: 'extra'; wrong shape or dtype: "
                "'0.weight' ([8, 4] float32 in the file, [7, 4] float32 in the module), "
                "'2.bias' ([3] int64 in the file, [3] float32 in the module)");
  EXPECT_EQ(parameter_values(*model), before);
  EXPECT_THROW(nn::load(*model, (dir / "none.safetensors").string()), Error);
  EXPECT_EQ(parameter_values(*model), before);
}

TEST(Checkpoint, SaveRefusesWhatTheFormatCannotHold) {
  const auto dir = scratch_dir();
  const std::string path = (dir / "t.safetensors").string();
  const auto error = [&](const nn::NamedTensors& tensors) {
    return error_of([&] { nn::write_safetensors(path, tensors); });
  };
  EXPECT_EQ(error({{"b", ones({2}) == ones({2})}}),
            "write_safetensors: Expected float32, float64 or int64 tensors, but 'b' is bool");
  EXPECT_EQ(error({{"a", ones({2})}, {"a", ones({2})}}),
            "write_safetensors: Expected unique tensor names, but 'a' appears more than once");
  EXPECT_EQ(error({{"__metadata__", ones({2})}}),
            "write_safetensors: Expected tensor names other than '' and '__metadata__', but got "
            "'__metadata__'");
  EXPECT_FALSE(fs::exists(path));
  const std::string message =
      error_of([&] { nn::save(*small_mlp(1), (dir / "no/such/m.safetensors").string()); });
  EXPECT_NE(message.find("Cannot write '" + (dir / "no/such/m.safetensors").string()),
            std::string::npos)
      << message;
}

// A child process saves again and again (each save a new "generation"); it is killed at a
// random moment, and the file must then load: the old checkpoint or the new one, never a mix.
TEST(Checkpoint, SaveKilledAtRandomMomentsAlwaysLeavesALoadableFile) {
  const auto dir = scratch_dir();
  const std::string path = (dir / "m.safetensors").string();
  auto model = small_mlp(1);
  nn::save(*model, path, {{"generation", "0"}});
  std::mt19937 rng(7);
  // A fixed number of kills, not a time budget: a loaded machine then takes longer, never
  // tests less.
  for (int kill_count = 0; kill_count < 25; ++kill_count) {
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      for (int generation = 1;; ++generation) {
        NoGradGuard no_grad;
        for (Tensor p : model->parameters()) p.fill_(generation);
        nn::save(*model, path, {{"generation", std::to_string(generation)}});
      }
    }
    std::this_thread::sleep_for(
        std::chrono::microseconds(std::uniform_int_distribution<int>(0, 3000)(rng)));
    kill(child, SIGKILL);
    int status = 0;
    waitpid(child, &status, 0);
    auto loaded = small_mlp(2);
    const nn::Metadata metadata = nn::load(*loaded, path);  // throws (fails) if broken
    const float value = std::stof(metadata.at("generation"));
    if (value > 0) {
      for (const auto& w : parameter_values(*loaded))
        EXPECT_EQ(w, std::vector<float>(w.size(), value));
    }
  }
  for (const auto& entry : fs::directory_iterator(dir)) fs::remove(entry.path());
}

TEST(CudaCheckpoint, ParametersComeBackToTheirDevice) {
  if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  const auto dir = scratch_dir();
  const std::string path = (dir / "m.safetensors").string();
  auto model = small_mlp(1);
  const auto on_cpu = parameter_values(*model);
  model->to(Device("cuda:0"));
  nn::save(*model, path);
  auto loaded = small_mlp(2);
  loaded->to(Device("cuda:0"));
  nn::load(*loaded, path);
  for (const Tensor& p : loaded->parameters()) EXPECT_EQ(p.device(), Device("cuda:0"));
  EXPECT_EQ(parameter_values(*loaded), on_cpu);
}

}  // namespace
}  // namespace torchlet
