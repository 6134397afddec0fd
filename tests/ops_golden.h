// PyTorch's numbers for the conformance tables (tests/fixtures/ops_golden.json, written by
// make_ops_golden.py), parsed once.
#pragma once

#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "testing.h"

namespace torchlet::testing {

inline const nlohmann::json& ops_golden() {
  static const nlohmann::json data = [] {
    std::ifstream in(TORCHLET_FIXTURES_DIR "/ops_golden.json");
    return nlohmann::json::parse(in);
  }();
  return data;
}

inline std::vector<float> floats(const nlohmann::json& j) { return j.get<std::vector<float>>(); }

// A conformance table of one-input rows: fixture name -> the op applied to x ([3, 4]).
using GoldenRow = std::function<Tensor(const Tensor&)>;
using GoldenRows = std::map<std::string, GoldenRow>;

// The fixtures of a section in T's precision: float, or double for the float64 rows
// (ops_golden.json's "float64" part, whose x gradients are "grad_x").
template <typename T>
struct Golden {
  static constexpr bool f64 = std::is_same_v<T, double>;
  static const nlohmann::json& section(const char* name) {
    return f64 ? ops_golden()["float64"][name] : ops_golden()[name];
  }
  static std::vector<T> values(const nlohmann::json& j) { return j.get<std::vector<T>>(); }
  static constexpr const char* grad_key = f64 ? "grad_x" : "grad";
  static constexpr double tol = f64 ? 1e-12 : 1e-5;
};

// Every fixture of `section` against its row: the output's shape, dtype and values, and x's
// gradient of sum(out * w); every row has a fixture. T double: the float64 fixtures, to 1e-12.
template <typename T = float>
void expect_rows_match_pytorch(const char* section, const GoldenRows& rows) {
  using G = Golden<T>;
  std::size_t seen = 0;
  for (const nlohmann::json& e : G::section(section)) {
    const std::string name = e["name"];
    SCOPED_TRACE(name);
    ASSERT_TRUE(rows.count(name)) << "no row for fixture " << name;
    ++seen;
    Tensor x = tensor(G::values(e["x"]), {3, 4});
    x.set_requires_grad(true);
    Tensor out = rows.at(name)(x);
    EXPECT_EQ(out.shape(), Shape(e["shape"].get<std::vector<int64_t>>()));
    EXPECT_EQ(out.dtype(), dtype_of<T>());
    EXPECT_TRUE(all_close(out.to_vector<T>(), G::values(e["out"]), G::tol, G::tol));
    (out * tensor(G::values(e["w"]), out.shape())).sum().backward();
    EXPECT_EQ(x.grad().dtype(), dtype_of<T>());
    EXPECT_TRUE(all_close(x.grad().to_vector<T>(), G::values(e[G::grad_key]), G::tol, G::tol));
  }
  EXPECT_EQ(seen, rows.size());
}

// Every fixture of `section` but those in `skip` (rows whose gradient has a kink at x, or whose
// selection changes under a nudge) against central finite differences: steps of 1e-3 and a
// tolerance of 2e-2 in float32, 1e-6 and 1e-7 in float64.
template <typename T = float>
void expect_rows_match_finite_differences(const char* section, const GoldenRows& rows,
                                          const std::set<std::string>& skip) {
  using G = Golden<T>;
  for (const nlohmann::json& e : G::section(section)) {
    const std::string name = e["name"];
    if (skip.count(name)) continue;
    const GoldenRow& f = rows.at(name);
    expect_gradients_match<T>([&](const auto& v) { return f(v[0]); },
                              {tensor(G::values(e["x"]), {3, 4})}, name, G::f64 ? 1e-6 : 1e-3,
                              G::f64 ? 1e-7 : 2e-2);
  }
}

}  // namespace torchlet::testing
