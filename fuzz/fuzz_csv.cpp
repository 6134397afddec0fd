// libFuzzer target: any file given to data::read_csv (training data) and to
// data::read_csv_table and parse_csv_number (`torchlet predict`) loads or raises torchlet::Error;
// never a crash. The readers take a path, so each input is written to a scratch file first.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

#include "torchlet/data/csv.h"
#include "torchlet/error.h"

namespace {

// The scratch file, removed when the fuzzer exits.
struct ScratchFile {
  std::string path = "/tmp/torchlet-fuzz-csv-" + std::to_string(getpid()) + ".csv";
  ~ScratchFile() { std::remove(path.c_str()); }
};

const std::string& scratch_path() {
  static const ScratchFile file;
  return file.path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::ofstream(scratch_path(), std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  // The first byte picks the label column, as --label would.
  const std::string label = size == 0 ? "" : data[0] % 3 == 0 ? "" : data[0] % 3 == 1 ? "0" : "b";
  try {
    const torchlet::data::Dataset ds = torchlet::data::read_csv(scratch_path(), label);
    if (ds.X.size(0) != ds.y.size(0)) __builtin_trap();
  } catch (const torchlet::Error&) {
  }
  try {
    const torchlet::data::CsvTable table = torchlet::data::read_csv_table(scratch_path());
    for (const torchlet::data::CsvRow& row : table.rows)
      for (const std::string& field : row.fields) {
        try {
          torchlet::data::parse_csv_number(scratch_path(), row.line, "column", field);
        } catch (const torchlet::Error&) {
        }
      }
  } catch (const torchlet::Error&) {
  }
  return 0;
}
