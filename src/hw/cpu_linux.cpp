// read_linux_cpu_facts: /proc/cpuinfo, the topology and cpufreq files under
// /sys/devices/system/cpu, and the hybrid PMU lists /sys/devices/cpu_core|cpu_atom/cpus.
// Every file may be missing (VMs have no cpufreq; non-hybrid CPUs no cpu_atom).
#include <set>
#include <utility>

#include "hw/text.h"
#include "torchlet/hw/cpu.h"

namespace torchlet::hw {
namespace {

std::optional<long long> read_int(const std::string& path) {
  const auto s = text::read_file(path);
  return s ? text::to_int(text::trim(*s)) : std::nullopt;
}

void read_proc_cpuinfo(const std::string& root, LinuxCpuFacts& f) {
  const auto info = text::read_file(root + "/proc/cpuinfo");
  if (!info) return;
  std::set<std::string> seen;  // the first processor's values are taken
  for (const std::string& line : text::split(*info, "\n")) {
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = text::trim(line.substr(0, colon));
    const std::string value = text::trim(line.substr(colon + 1));
    if (!seen.insert(key).second) continue;
    if (key == "model name" || (key == "Processor" && f.model_name.empty()))
      f.model_name = value;
    else if (key == "vendor_id")
      f.vendor_id = value;
    else if (key == "cpu family")
      f.family = static_cast<int>(text::to_int(value).value_or(-1));
    else if (key == "model")
      f.model = static_cast<int>(text::to_int(value).value_or(-1));
    else if (key == "stepping")
      f.stepping = static_cast<int>(text::to_int(value).value_or(-1));
    else if (key == "cpu MHz")
      f.cpu_mhz = text::to_double(value).value_or(0.0);
    else if (key == "flags" || key == "Features") {
      for (const std::string& flag : text::split(value, " \t")) f.flags.insert(flag);
    }
  }
}

}  // namespace

int LinuxCpuFacts::physical_cores() const {
  std::set<std::pair<int, int>> cores;
  for (const auto& [cpu, core] : core_of) {
    const auto pkg = package_of.find(cpu);
    cores.insert({pkg == package_of.end() ? 0 : pkg->second, core});
  }
  return static_cast<int>(cores.size());
}

LinuxCpuFacts read_linux_cpu_facts(const std::string& root) {
  LinuxCpuFacts f;
  read_proc_cpuinfo(root, f);
  const std::string cpu_dir = root + "/sys/devices/system/cpu/";
  const auto online = text::read_file(cpu_dir + "online");
  const std::vector<int> cpus = online ? text::parse_cpulist(*online) : std::vector<int>{};
  f.online_cpus = static_cast<int>(cpus.size());
  for (int cpu : cpus) {
    const std::string dir = cpu_dir + "cpu" + std::to_string(cpu) + "/";
    if (const auto pkg = read_int(dir + "topology/physical_package_id"))
      f.package_of[cpu] = static_cast<int>(*pkg);
    if (const auto core = read_int(dir + "topology/core_id"))
      f.core_of[cpu] = static_cast<int>(*core);
    if (const auto khz = read_int(dir + "cpufreq/cpuinfo_max_freq")) f.max_mhz[cpu] = *khz / 1000.0;
    if (const auto khz = read_int(dir + "cpufreq/base_frequency")) f.base_mhz[cpu] = *khz / 1000.0;
  }
  if (const auto p = text::read_file(root + "/sys/devices/cpu_core/cpus"))
    f.performance_cpus = text::parse_cpulist(*p);
  if (const auto e = text::read_file(root + "/sys/devices/cpu_atom/cpus"))
    f.efficiency_cpus = text::parse_cpulist(*e);
  return f;
}

}  // namespace torchlet::hw
