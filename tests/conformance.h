// The conformance table's tests, each also kept in a list by name, so that
// test_backend_coverage.cpp can run every one of them again under a counting backend and name
// the backend entries none of them reached. CONFORMANCE_TEST(Suite, Name) { body } is a gtest
// TEST(Suite, Name) whose body is also in conformance_tests().
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace torchlet::testing {

using ConformanceTests = std::vector<std::pair<std::string, void (*)()>>;

inline ConformanceTests& conformance_tests() {
  static ConformanceTests tests;
  return tests;
}

inline bool add_conformance_test(std::string name, void (*body)()) {
  conformance_tests().emplace_back(std::move(name), body);
  return true;
}

}  // namespace torchlet::testing

// With TORCHLET_CONFORMANCE_BODIES_ONLY (the CUDA emulator's build of the tables) only the list
// is filled, and no gtest TEST is defined: test_cuda_emu_conformance.cpp runs the bodies.
// A table's file may hold other tests too (errors, modules, GPU-only checks): NON_TABLE_TEST is
// a gtest TEST in the normal build and, in the emulator's build, a function that is never run.
#if defined(TORCHLET_CONFORMANCE_BODIES_ONLY)
#define TORCHLET_CONFORMANCE_GTEST(suite, name)
#define NON_TABLE_TEST(suite, name) [[maybe_unused]] void suite##_##name##_not_in_the_table()
#else
#define TORCHLET_CONFORMANCE_GTEST(suite, name) \
  TEST(suite, name) { suite##_##name##_body(); }
#define NON_TABLE_TEST(suite, name) TEST(suite, name)
#endif

#define CONFORMANCE_TEST(suite, name)                                                     \
  void suite##_##name##_body();                                                           \
  [[maybe_unused]] const bool suite##_##name##_added =                                    \
      ::torchlet::testing::add_conformance_test(#suite "." #name, suite##_##name##_body); \
  TORCHLET_CONFORMANCE_GTEST(suite, name)                                                 \
  void suite##_##name##_body()
