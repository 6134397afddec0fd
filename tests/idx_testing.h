// Helpers for the IDX and MNIST tests: an IDX file's bytes from its dimensions and data,
// writing them plain or gzipped, and setting an environment variable for one test.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>
#include <zlib.h>

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

namespace torchlet::testing {

using Bytes = std::vector<uint8_t>;

// An IDX file's bytes: magic 0x0000 `type` `dims.size()`, big-endian sizes, then data.
inline Bytes idx_bytes(const std::vector<uint32_t>& dims, const Bytes& data, uint8_t type = 0x08) {
  Bytes out = {0, 0, type, static_cast<uint8_t>(dims.size())};
  for (uint32_t d : dims)
    for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<uint8_t>(d >> shift));
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

inline void write_plain(const std::string& path, const Bytes& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

inline void write_gz(const std::string& path, const Bytes& bytes) {
  gzFile file = gzopen(path.c_str(), "wb");
  ASSERT_NE(file, nullptr) << path;
  ASSERT_EQ(gzwrite(file, bytes.data(), static_cast<unsigned>(bytes.size())), int(bytes.size()));
  ASSERT_EQ(gzclose(file), Z_OK);
}

inline Bytes iota_bytes(std::size_t n, uint8_t first = 0) {
  Bytes out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<uint8_t>(first + 7 * i);
  return out;
}

// Sets (or with nullptr unsets) an environment variable for one test, restoring it after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    value ? setenv(name, value, 1) : unsetenv(name);
  }
  ~ScopedEnv() { had_ ? setenv(name_, old_.c_str(), 1) : unsetenv(name_); }

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

}  // namespace torchlet::testing
