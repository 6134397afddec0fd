// libFuzzer target: any bytes given to the safetensors reader either parse into tensors that
// agree with their header or raise torchlet::Error; never a crash, a leak or an out-of-bounds
// read (AddressSanitizer and UndefinedBehaviorSanitizer watch).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "torchlet/error.h"
#include "torchlet/nn/checkpoint.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    const torchlet::nn::Safetensors file = torchlet::nn::parse_safetensors(bytes, "fuzz");
    std::size_t total = 0;
    for (const auto& [name, tensor] : file.tensors)
      total += static_cast<std::size_t>(tensor.numel()) * torchlet::element_size(tensor.dtype());
    if (total > size) __builtin_trap();  // more tensor data than the file holds
  } catch (const torchlet::Error&) {
  }
  return 0;
}
