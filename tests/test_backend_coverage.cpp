// Issue 14's "every backend entry was exercised": the conformance tables (every CONFORMANCE_TEST,
// conformance.h) run again with the CPU backend behind a counting backend, and every entry of
// backends/backend.h must have been called at least once; the failure names those never called.
// The counter's list of entries is checked against the header itself, so a new entry cannot be
// left out of the count.
#include <regex>
#include <set>

#include "backend_counter.h"
#include "conformance.h"
#include "testing.h"

namespace torchlet {
namespace {

using testing::CountingBackend;

// The names of the virtual functions of backends/backend.h (destructors left out): those it
// declares itself and the kernels it declares from backends/entries.def.
std::set<std::string> entries_of_backend_h() {
  std::set<std::string> names =
      testing::functions_declared_in(TORCHLET_FIXTURES_DIR "/../../src/backends/backend.h",
                                     std::regex(R"(virtual\s+[^;{(]*?(~?\w+)\s*\()"));
  names.merge(testing::kernels_of_entries_def(TORCHLET_FIXTURES_DIR "/../.."));
  return names;
}

TEST(BackendCoverage, TheCounterCountsEveryEntryOfBackendH) {
  const std::set<std::string> header = entries_of_backend_h();
  ASSERT_GT(header.size(), 30u) << "backend.h not found or not parsed";
  const std::set<std::string> counted(CountingBackend::kEntries.begin(),
                                      CountingBackend::kEntries.end());
  for (const std::string& name : header)
    EXPECT_TRUE(counted.count(name))
        << "backend.h's " << name << " is not counted: add it to tests/backend_counter.h";
  for (const std::string& name : counted)
    EXPECT_TRUE(header.count(name)) << name << " is counted but is no entry of backend.h";
}

// The two entries called on a tensor's own backend and never through backend::routed, so that no
// counter sees them: Tensor::device() asks its storage's backend, and only cuda::synchronize()
// calls synchronize. Every other entry must be reached.
const std::set<std::string> kNotRouted = {"device", "synchronize"};

TEST(BackendCoverage, TheConformanceTablesCallEveryEntryOnTheCpu) {
  CountingBackend counter(backend::get(Device(DeviceType::CPU)));
  {
    testing::CountingScope scope(counter);
    for (const auto& [name, body] : testing::conformance_tests()) {
      SCOPED_TRACE(name);
      body();
    }
  }
  std::string never;
  for (std::size_t k = 0; k < CountingBackend::kEntries.size(); ++k) {
    const std::string name(CountingBackend::kEntries[k]);
    if (kNotRouted.count(name))
      EXPECT_EQ(counter.calls(k), 0) << name << " is routed now: take it off kNotRouted";
    else if (counter.calls(k) == 0)
      never.append(" ").append(name);
  }
  EXPECT_EQ(never, "") << "backend entries no conformance test calls on the CPU";
  EXPECT_GT(testing::conformance_tests().size(), 20u);
}

}  // namespace
}  // namespace torchlet
