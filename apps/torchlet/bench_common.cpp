// Shared pieces of `torchlet bench`: devices, the output folder, the index page, JSON.
#include "bench_common.h"

#include <fmt/chrono.h>
#include <fmt/core.h>

#include <ctime>
#include <filesystem>

#include "stop_signals.h"
#include "torchlet/cuda.h"
#include "torchlet/error.h"
#include "torchlet/hw/cpu.h"
#include "torchlet/hw/gpu.h"
#include "torchlet/io/file.h"
#include "torchlet/report/chart.h"
#include "torchlet/version.h"

namespace torchlet::cli::bench {

void add_common_options(CLI::App& cmd, CommonArgs& args) {
  cmd.add_option("--device", args.device,
                 "all (the CPU and every GPU), cpu, cuda (every GPU) or cuda:N")
      ->capture_default_str();
  cmd.add_option("--out", args.out, "Also write JSON, CSV, SVG charts and index.html here");
  cmd.add_flag("--json", args.json, "Print one JSON object on stdout (the report goes to stderr)");
}

std::vector<Device> devices_for(const std::string& spec) {
  const int gpus = cuda::is_available() ? cuda::device_count() : 0;
  std::vector<Device> devices;
  auto add_gpus = [&] {
    for (int i = 0; i < gpus; ++i) devices.emplace_back(DeviceType::CUDA, i);
  };
  if (spec == "all") {
    devices.push_back(kCPU);
    add_gpus();
    return devices;
  }
  TORCHLET_CHECK(spec == "cpu" || spec.rfind("cuda", 0) == 0,
                 "--device: Expected all, cpu, cuda or cuda:N, but got '", spec, "'");
  if (spec == "cpu") return {kCPU};
  const Device device(spec);  // checks the spelling of "cuda:N"
  TORCHLET_CHECK(gpus > 0, "--device ", spec,
                 ": Expected a CUDA device, but none is available "
                 "(this torchlet was built without CUDA or finds no GPU). Use --device cpu or all");
  if (device.index() < 0) {
    add_gpus();
    return devices;
  }
  TORCHLET_CHECK(device.index() < gpus, "--device ", spec, ": Expected a GPU index below ", gpus,
                 " (the number of GPUs), but got ", device.index());
  return {device};
}

void prepare_out_dir(const std::string& dir) {
  if (dir.empty()) return;
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  TORCHLET_CHECK(!error && std::filesystem::is_directory(dir), "--out ", dir,
                 ": Expected a folder that can be created, but ",
                 error ? error.message() : std::string("it is not a folder"));
  io::check_writable_path((std::filesystem::path(dir) / "index.html").string(), "--out");
}

void write_out(const std::string& dir, const std::string& name, std::string_view content) {
  const FinalWrites writing;  // a second signal waits: no temporary is left behind
  io::write_file_atomic((std::filesystem::path(dir) / name).string(), content);
}

std::string index_html(const std::string& title, const std::vector<std::string>& notes,
                       const std::vector<Figure>& figures, const std::vector<std::string>& files) {
  std::string html =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" +
      report::xml_escape(title) +
      "</title>\n<style>body{font-family:system-ui,sans-serif;max-width:1100px;"
      "margin:2em auto;padding:0 1em;color:#222}figure{margin:1.5em 0}"
      "img{max-width:100%;border:1px solid #ddd}figcaption{color:#555}"
      "pre{background:#f6f6f6;padding:1em;overflow-x:auto}</style>\n</head>\n"
      "<body>\n<h1>" +
      report::xml_escape(title) + "</h1>\n";
  for (const std::string& note : notes) {
    const bool preformatted = note.find('\n') != std::string::npos;
    html += preformatted ? "<pre>" + report::xml_escape(note) + "</pre>\n"
                         : "<p>" + report::xml_escape(note) + "</p>\n";
  }
  for (const Figure& f : figures) {
    html += "<figure>\n";
    if (!f.file.empty())
      html += "<img src=\"" + report::xml_escape(f.file) + "\" alt=\"" +
              report::xml_escape(f.caption) + "\">\n";
    html += "<figcaption>" + report::xml_escape(f.caption) + "</figcaption>\n</figure>\n";
  }
  html += "<p>Data:";
  for (const std::string& file : files)
    html += " <a href=\"" + report::xml_escape(file) + "\">" + report::xml_escape(file) + "</a>";
  html += "</p>\n</body>\n</html>\n";
  return html;
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

nlohmann::json counters_json(const profile::Counters& c) {
  using profile::CopyKind;
  return {{"launches", c.launches},
          {"syncs", c.syncs},
          {"sync_s", c.sync_seconds},
          {"copies", c.total_copies()},
          {"copy_bytes", c.total_copy_bytes()},
          {"h2d_copies", c.copies_of(CopyKind::HostToDevice)},
          {"h2d_bytes", c.bytes_of(CopyKind::HostToDevice)},
          {"d2h_copies", c.copies_of(CopyKind::DeviceToHost)},
          {"d2h_bytes", c.bytes_of(CopyKind::DeviceToHost)},
          {"d2d_copies", c.copies_of(CopyKind::DeviceToDevice)},
          {"d2d_bytes", c.bytes_of(CopyKind::DeviceToDevice)},
          {"allocations", c.allocations},
          {"system_allocations", c.system_allocations}};
}

namespace {

const hw::CpuReport& cpu() {
  static const hw::CpuReport report = hw::cpu_report();
  return report;
}

// GPU names, read once and only when a GPU is used (the report opens the driver libraries).
std::string gpu_name(int index) {
  static const hw::GpuReport report = hw::gpu_report();
  for (const hw::GpuDevice& d : report.devices)
    if (d.index == index) return d.name;
  return "";
}

}  // namespace

std::string device_description(const Device& device) {
  if (device.is_cuda()) {
    const std::string name = gpu_name(device.index());
    return name.empty() ? device.str() : fmt::format("{} ({})", device.str(), name);
  }
  const hw::CpuReport& c = cpu();
  return fmt::format("cpu ({}, {} cores)", c.model_name.empty() ? "unknown CPU" : c.model_name,
                     c.physical_cores > 0 ? c.physical_cores : c.logical_threads);
}

nlohmann::json machine_json(const std::vector<Device>& devices) {
  nlohmann::json j;
  j["torchlet_version"] = TORCHLET_VERSION;
  j["date_utc"] = fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(std::time(nullptr)));
  j["cpu"] = cpu().model_name;
  j["cpu_cores"] = cpu().physical_cores;
  j["cuda_available"] = cuda::is_available();
  nlohmann::json list = nlohmann::json::array();
  for (const Device& d : devices)
    list.push_back({{"device", d.str()}, {"name", device_description(d)}});
  j["devices"] = list;
  return j;
}

}  // namespace torchlet::cli::bench
