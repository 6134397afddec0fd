// What the `torchlet bench` subcommands share: which devices to run on, the output folder
// (--out) and its index.html, the profile counters as JSON, timing, and the machine's name.
#pragma once

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "torchlet/device.h"
#include "torchlet/profile.h"

namespace torchlet::cli::bench {

// Options every bench takes.
struct CommonArgs {
  std::string device = "all";
  std::string out;  // folder for JSON, CSV, SVG and index.html; empty: none
  bool json = false;
};
void add_common_options(CLI::App& cmd, CommonArgs& args);

// The devices --device names: "all" (the CPU and every CUDA device), "cpu", "cuda" (every
// CUDA device), "cuda:N". Asking for CUDA where there is none throws torchlet::Error.
std::vector<Device> devices_for(const std::string& spec);

// Creates the --out folder (and its parents) and checks that files can be written in it, so
// that a bad path is refused before the work starts. No-op for an empty path.
void prepare_out_dir(const std::string& dir);
// Writes dir/name atomically.
void write_out(const std::string& dir, const std::string& name, std::string_view content);

// One chart or table on the index page.
struct Figure {
  std::string file;     // an SVG in the same folder ("" for text only)
  std::string caption;  // plain text, escaped when written
};
// index.html: the title, a paragraph per entry of `notes`, every figure, and links to the
// JSON and CSV files.
std::string index_html(const std::string& title, const std::vector<std::string>& notes,
                       const std::vector<Figure>& figures, const std::vector<std::string>& files);

// Where the human-readable report goes: stderr with --json (stdout is the JSON), else stdout.
inline std::FILE* report_stream(const CommonArgs& a) { return a.json ? stderr : stdout; }

// A CSV field: quoted when it holds a comma, quote or line break.
std::string csv_field(const std::string& text);

nlohmann::json counters_json(const profile::Counters& c);
// The machine, the torchlet version and the time (UTC), for every bench's JSON.
nlohmann::json machine_json(const std::vector<Device>& devices);
// "cpu (AMD EPYC, 2 cores)" or "cuda:0 (NVIDIA H200)".
std::string device_description(const Device& device);

using Clock = std::chrono::steady_clock;
inline double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace torchlet::cli::bench
