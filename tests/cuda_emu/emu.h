// The CUDA emulator's controls, for tests: the order in which each block's threads (and the
// grid's blocks) run between barriers, the errors a launch can raise, and which kernels ran.
// The runtime itself is declared in include/cuda_runtime_api.h, which the emulated .cu files
// read in place of CUDA's.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace torchlet::emu {

// Forward: thread 0 first up to its next barrier, then thread 1 ...; Reverse: the last thread
// first; Shuffled: a new random order after every barrier (seeded, so a failure reproduces).
enum class Order { Forward, Reverse, Shuffled };
inline constexpr Order kOrders[] = {Order::Forward, Order::Reverse, Order::Shuffled};
const char* order_name(Order order);
void set_order(Order order, uint64_t seed = 1);

// A launch CUDA would refuse on sm_90 (too many threads, blocks or shared bytes), or a barrier
// that some of the block's threads never reached.
struct LaunchError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// sm_90's limits, as the emulator enforces them.
inline constexpr unsigned kMaxThreadsPerBlock = 1024;
inline constexpr unsigned kMaxGridYZ = 65535;
inline constexpr std::size_t kSharedDefault = 48 * 1024;
inline constexpr std::size_t kSharedOptIn = 227 * 1024;

// The kernels launched since the last clear_launched(), by name, in launch order.
const std::vector<std::string>& launched();
void clear_launched();
// Forgets every cudaFuncSetAttribute (a fresh process's state).
void clear_attributes();
// cudaFuncSetAttribute calls so far.
int64_t attribute_calls();

// While set, submit() hands launches and copies to it instead of running them (the stub
// runtime sets it during a stream capture).
std::function<void(std::function<void()>)>& capture_sink();

}  // namespace torchlet::emu
