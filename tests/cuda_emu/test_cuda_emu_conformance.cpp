// The conformance tables (every CONFORMANCE_TEST of the files TORCHLET_EMU_TABLES lists in
// CMakeLists.txt: the elementwise, shape, indexing, float64 and layer-kernel tables and the
// PyTorch-golden losses, layers, norms, images, optimizers and fused MLP, compiled into this binary
// as bodies only) run on the emulated CUDA kernels: CPU tensors' kernel calls are routed, through a
// counting backend, to a bridge that runs every kernel on the CUDA backend and leaves memory to
// the CPU's (the stub runtime's device memory is host memory, so the kernels read and write the
// tensors in place). The tables' own checks are the test. One gtest (so one ctest entry) per
// group of tables, so that `ctest -j` spreads them; each group names the CUDA backend's entries
// it must reach there, EveryCudaEntryIsReachedByATable checks that every entry cuda_backend.h
// overrides is named by a group (or is one of the two no counter sees), and
// EveryTableIsInOneGroup that no table is left out.
#include <regex>
#include <set>
#include <string>

#include "backend_counter.h"
#include "conformance.h"
#include "cuda_emu/stub_testing.h"

namespace torchlet::emu::testing {
namespace {

using namespace torchlet::backend;

// Memory on the CPU backend, every kernel on the (emulated) CUDA backend; a copy to the host
// waits for the kernels first, so an index error they report surfaces there.
class GpuKernelsOnHostMemory final : public Backend {
 public:
  GpuKernelsOnHostMemory(Backend& host, Backend& gpu) : host_(host), gpu_(gpu) {}

  Device device() const override { return host_.device(); }
  void* allocate(std::size_t nbytes) override { return host_.allocate(nbytes); }
  void deallocate(void* ptr, std::size_t nbytes) noexcept override {
    host_.deallocate(ptr, nbytes);
  }
  void copy_from_host(void* dst, const void* src, std::size_t nbytes) override {
    host_.copy_from_host(dst, src, nbytes);
  }
  void copy_to_host(void* dst, const void* src, std::size_t nbytes) override {
    gpu_.synchronize();  // the kernels' results (and their errors) first
    host_.copy_to_host(dst, src, nbytes);
  }
  void synchronize() override { gpu_.synchronize(); }
  // Every kernel of backends/entries.def on the GPU.
#define TORCHLET_KERNEL(name, recording, params, args) \
  void name params override { gpu_.name args; }
#include "backends/entries.def"
#undef TORCHLET_KERNEL
  void linear_forward(const float* x, const float* w, const float* bias, float* y, int64_t rows,
                      int64_t in, int64_t out) override {
    gpu_.linear_forward(x, w, bias, y, rows, in, out);
  }
  bool capturing() const override { return gpu_.capturing(); }
  backend::FusedMlpKernels* fused_mlp() override { return gpu_.fused_mlp(); }

 private:
  Backend& host_;
  Backend& gpu_;
};

// A group of tables (the prefixes of their "Suite.Name") and the CUDA backend entries they must
// reach.
struct Group {
  std::set<std::string> tables;
  std::set<std::string> reaches;
  bool has(const std::string& name) const {
    for (const std::string& prefix : tables)
      if (name.starts_with(prefix)) return true;
    return false;
  }
};

// Split so that no group takes much longer than the others (ctest -j spreads them): the unary
// rows on awkward shapes alone take about 20 s of CPU time in the emulation.
const Group kElementwise = {
    {"OpsConformance.Every", "OpsConformance.Binary", "OpsConformance.Comparisons",
     "OpsConformance.LogicAndWhere", "OpsConformance.TypePromotion", "OpsConformance.Errors"},
    {"allocate", "deallocate", "copy_from_host", "copy_to_host", "fill", "cast", "binary",
     "binary_scalar", "where", "sum_dim"}};
const Group kUnaryRows = {{"OpsConformance.UnaryForward", "OpsConformance.UnaryGradients",
                           "OpsConformance.UnaryRowsInFloat64"},
                          {"unary"}};
const Group kUnaryOnAwkwardShapes = {{"OpsConformance.UnaryOnAwkwardShapes"}, {"strided_copy"}};
const Group kShapes = {{"OpsShapes."}, {"sum_dim_int64", "reduce_dim", "cumsum_dim", "argmax_dim"}};
const Group kIndexing = {
    {"OpsIndexing.EveryRow", "OpsIndexing.GatherAndScatterAdd", "OpsIndexing.EmptySizeOne",
     "OpsIndexing.BasicIndexing", "OpsIndexing.IndexPutInPlaceWith", "OpsIndexing.ScatterWith",
     "OpsIndexing.Errors"},
    {"gather_rows", "gather_dim", "scatter_dim"}};
const Group kFloat64IndexingAndMatrices = {
    {"OpsIndexing.Float64", "Float64.MatrixProducts"},
    {"gather_rows", "gather_dim", "scatter_dim", "sum_dim_float64", "gemm_float64"}};
// The norms (float32 and float64) and the float64 layer, convolution, pool and dropout rows.
const Group kNormsAndFloat64Layers = {
    {"NnLayers.", "Float64.Layers", "Float64.Convolutions", "Float64.Dropout"},
    {"gemm_float64", "sum_dim_float64", "dropout_forward", "gather_rows", "scatter_dim",
     "reduce_dim"}};
const Group kLosses = {
    {"Losses."},
    {"softmax_forward", "softmax_backward", "cross_entropy_forward", "cross_entropy_backward"}};
const Group kLayers = {
    {"LayersGolden.", "OpsConformanceLayers."},
    {"gemm", "im2col", "col2im", "linear_forward", "dropout_forward", "capturing"}};
const Group kImages = {
    {"ImageGolden."},
    {"relu_forward", "relu_backward", "max_pool2d_forward", "max_pool2d_backward"}};
const Group kOptimizers = {{"OptimGolden."},
                           {"sgd_step", "adam_step", "rmsprop_step", "adagrad_step"}};
const Group kFusedMlp = {{"FusedMlp."}, {"fused_mlp", "mlp_step", "mlp_sgd_steps"}};
const std::vector<const Group*> kGroups = {&kElementwise,
                                           &kUnaryRows,
                                           &kUnaryOnAwkwardShapes,
                                           &kShapes,
                                           &kIndexing,
                                           &kFloat64IndexingAndMatrices,
                                           &kNormsAndFloat64Layers,
                                           &kLosses,
                                           &kLayers,
                                           &kImages,
                                           &kOptimizers,
                                           &kFusedMlp};

// The CUDA backend's entries no table can reach through the counter: device() is asked of a
// tensor's own backend, never through backend::routed, and synchronize() is called only by
// cuda::synchronize() (test_backend_coverage.cpp's kNotRouted); the bridge itself calls the CUDA
// backend's synchronize() before every copy to the host.
const std::set<std::string> kNotRouted = {"device", "synchronize"};

// The table that expects an out-of-range index to throw at the call: a GPU kernel reports it at
// the next synchronisation instead (backend.h's gather_rows, gather_dim, scatter_dim), which
// test_cuda_emu_index.cpp checks.
const std::set<std::string> kHostErrorTests = {"OpsIndexing.ErrorsSayWhatWasExpected"};

// Runs the group's tables on the emulated kernels; the group's entries they did not reach.
std::string run_on_the_emulated_kernels(const Group& group) {
  GpuKernelsOnHostMemory bridge(cpu(), gpu());
  torchlet::testing::CountingBackend counter(bridge);
  std::size_t ran = 0;
  {
    torchlet::testing::CountingScope scope(counter, cpu());
    for (const auto& [name, body] : torchlet::testing::conformance_tests()) {
      if (kHostErrorTests.count(name) || !group.has(name)) continue;
      SCOPED_TRACE(name);
      body();
      ++ran;
    }
  }
  EXPECT_GT(ran, 0u) << "no table of the group is compiled in";
  std::string missed;
  for (std::size_t k = 0; k < torchlet::testing::CountingBackend::kEntries.size(); ++k) {
    const std::string name(torchlet::testing::CountingBackend::kEntries[k]);
    if (group.reaches.count(name) && counter.calls(k) == 0) missed.append(" ").append(name);
  }
  return missed;
}

#define GROUP_TEST(group)                                                       \
  TEST(CudaEmuConformance, group) {                                             \
    EXPECT_EQ(run_on_the_emulated_kernels(k##group), "")                        \
        << "entries the group's tables no longer reach on the emulated device"; \
  }
GROUP_TEST(Elementwise)
GROUP_TEST(UnaryRows)
GROUP_TEST(UnaryOnAwkwardShapes)
GROUP_TEST(Shapes)
GROUP_TEST(Indexing)
GROUP_TEST(Float64IndexingAndMatrices)
GROUP_TEST(NormsAndFloat64Layers)
GROUP_TEST(Losses)
GROUP_TEST(Layers)
GROUP_TEST(Images)
GROUP_TEST(Optimizers)
GROUP_TEST(FusedMlp)
#undef GROUP_TEST

// The names of the functions backends/cuda/cuda_backend.h marks `override` (the destructor left
// out), with the kernels of backends/entries.def it overrides: the CUDA backend's entries of
// backend.h.
std::set<std::string> entries_of_cuda_backend_h() {
  std::set<std::string> names = torchlet::testing::functions_declared_in(
      TORCHLET_SOURCE_DIR "/src/backends/cuda/cuda_backend.h",
      std::regex(R"((~?\w+)\s*\([^;{}()]*\)\s*(const\s*)?(noexcept\s*)?override)"));
  names.merge(torchlet::testing::kernels_of_entries_def(TORCHLET_SOURCE_DIR));
  return names;
}

TEST(CudaEmuConformance, EveryCudaEntryIsReachedByATable) {
  const std::set<std::string> entries = entries_of_cuda_backend_h();
  ASSERT_GT(entries.size(), 30u) << "cuda_backend.h not found or not parsed";
  std::set<std::string> named = kNotRouted;
  for (const Group* group : kGroups) named.insert(group->reaches.begin(), group->reaches.end());
  std::string unreached, unknown;
  for (const std::string& name : entries)
    if (!named.count(name)) unreached.append(" ").append(name);
  for (const std::string& name : named)
    if (!entries.count(name)) unknown.append(" ").append(name);
  EXPECT_EQ(unreached, "") << "CUDA backend entries no table reaches on the emulated device";
  EXPECT_EQ(unknown, "") << "named by a group but no entry of cuda_backend.h";
}

TEST(CudaEmuConformance, EveryTableIsInOneGroup) {
  for (const auto& [name, body] : torchlet::testing::conformance_tests()) {
    int groups = 0;
    for (const Group* group : kGroups) groups += group->has(name);
    EXPECT_EQ(groups, 1) << name;
  }
}

}  // namespace
}  // namespace torchlet::emu::testing
