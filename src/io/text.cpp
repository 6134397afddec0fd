// UTF-8 validation (RFC 3629's well-formed byte sequences) and its message with line and
// column.
#include "torchlet/io/text.h"

#include <cstdint>
#include <cstdio>

#include "torchlet/error.h"

namespace torchlet::io {

std::size_t invalid_utf8_offset(std::string_view text) noexcept {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto lead = static_cast<unsigned char>(text[i]);
    if (lead < 0x80) {
      ++i;
      continue;
    }
    // The length of the sequence and the range its second byte must be in (which rules out
    // overlong forms, surrogates and code points above U+10FFFF).
    std::size_t length = 0;
    unsigned char low = 0x80, high = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF) {
      length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      length = 3;
      if (lead == 0xE0) low = 0xA0;
      if (lead == 0xED) high = 0x9F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      length = 4;
      if (lead == 0xF0) low = 0x90;
      if (lead == 0xF4) high = 0x8F;
    } else {
      return i;
    }
    for (std::size_t k = 1; k < length; ++k) {
      if (i + k >= text.size()) return i;
      const auto next = static_cast<unsigned char>(text[i + k]);
      const bool ok = k == 1 ? next >= low && next <= high : next >= 0x80 && next <= 0xBF;
      if (!ok) return i;
    }
    i += length;
  }
  return std::string_view::npos;
}

void check_utf8(std::string_view text, const std::string& name) {
  const std::size_t bad = invalid_utf8_offset(text);
  if (bad == std::string_view::npos) return;
  int64_t line = 1, column = 1;
  for (std::size_t i = 0; i < bad; ++i) {
    if (text[i] == '\n') {
      ++line, column = 1;
    } else if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
      ++column;  // a character starts here (continuation bytes do not count)
    }
  }
  char byte[8];
  std::snprintf(byte, sizeof byte, "0x%02x", static_cast<unsigned char>(text[bad]));
  TORCHLET_CHECK_KIND(IO, false, name, ":", line, ":", column,
                      ": Expected UTF-8 text, but got the byte ", byte);
}

}  // namespace torchlet::io
