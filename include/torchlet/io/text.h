// Validating text read from files before it reaches names, reports and JSON.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace torchlet::io {

// The offset of the first byte of `text` that is not part of well-formed UTF-8 (an overlong
// form, a surrogate, a code point above U+10FFFF or a cut sequence included), or npos.
std::size_t invalid_utf8_offset(std::string_view text) noexcept;

// Throws torchlet::Error (kind IO) unless `text` is UTF-8: "<name>:<line>:<column>: Expected
// UTF-8 text, but got the byte 0xff", the line and the column (in characters) counted from 1
// as an editor shows them.
void check_utf8(std::string_view text, const std::string& name);

}  // namespace torchlet::io
