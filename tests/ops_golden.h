// PyTorch's numbers for the conformance tables (tests/fixtures/ops_golden.json, written by
// make_ops_golden.py), parsed once.
#pragma once

#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
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

// Every fixture of `section` against its row: the output's shape and values, and x's gradient
// of sum(out * w); every row has a fixture.
inline void expect_rows_match_pytorch(const char* section, const GoldenRows& rows) {
  std::size_t seen = 0;
  for (const nlohmann::json& e : ops_golden()[section]) {
    const std::string name = e["name"];
    SCOPED_TRACE(name);
    ASSERT_TRUE(rows.count(name)) << "no row for fixture " << name;
    ++seen;
    Tensor x = tensor(floats(e["x"]), {3, 4});
    x.set_requires_grad(true);
    Tensor out = rows.at(name)(x);
    EXPECT_EQ(out.shape(), Shape(e["shape"].get<std::vector<int64_t>>()));
    EXPECT_TRUE(all_close(out.to_vector<float>(), floats(e["out"]), 1e-5, 1e-5));
    (out * tensor(floats(e["w"]), out.shape())).sum().backward();
    EXPECT_TRUE(all_close(x.grad().to_vector<float>(), floats(e["grad"]), 1e-5, 1e-5));
  }
  EXPECT_EQ(seen, rows.size());
}

// Every fixture of `section` but those in `skip` (rows whose gradient has a kink at x, or whose
// selection changes under a nudge) against central finite differences.
inline void expect_rows_match_finite_differences(const char* section, const GoldenRows& rows,
                                                 const std::set<std::string>& skip) {
  for (const nlohmann::json& e : ops_golden()[section]) {
    const std::string name = e["name"];
    if (skip.count(name)) continue;
    const GoldenRow& f = rows.at(name);
    expect_gradients_match([&](const auto& v) { return f(v[0]); }, {tensor(floats(e["x"]), {3, 4})},
                           name, 1e-3, 2e-2);
  }
}

}  // namespace torchlet::testing
