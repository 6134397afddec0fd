// PyTorch's numbers for the conformance tables (tests/fixtures/ops_golden.json, written by
// make_ops_golden.py), parsed once.
#pragma once

#include <fstream>
#include <nlohmann/json.hpp>
#include <vector>

namespace torchlet::testing {

inline const nlohmann::json& ops_golden() {
  static const nlohmann::json data = [] {
    std::ifstream in(TORCHLET_FIXTURES_DIR "/ops_golden.json");
    return nlohmann::json::parse(in);
  }();
  return data;
}

inline std::vector<float> floats(const nlohmann::json& j) { return j.get<std::vector<float>>(); }

}  // namespace torchlet::testing
