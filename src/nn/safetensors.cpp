// The safetensors format: writing a header and data, and reading one back with every check
// made before a byte of tensor data is used. A file's bytes are only ever reached through
// offsets already checked against the file's size. nlohmann-json stays inside this file.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "torchlet/error.h"
#include "torchlet/io/file.h"
#include "torchlet/io/read.h"
#include "torchlet/nn/checkpoint.h"

namespace torchlet::nn {
namespace {

static_assert(std::endian::native == std::endian::little,
              "safetensors data is little-endian; torchlet copies it as it is in memory");

// Headers are read into std::map-backed objects (each key found in log time, so a header of
// many tensors parses in n log n) and written in the tensors' order.
using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

constexpr std::size_t kLengthBytes = 8;
// The reference implementation's limit; a larger length means a damaged or foreign file.
constexpr uint64_t kMaxHeaderBytes = 100'000'000;
constexpr const char* kMetadataKey = "__metadata__";

const char* safetensors_dtype(DType dtype) {
  switch (dtype) {
    case DType::Float32: return "F32";
    case DType::Float64: return "F64";
    case DType::Int64: return "I64";
    case DType::Bool: break;
  }
  return nullptr;
}

// A tensor's entry in the header, checked on its own (not yet against the others).
struct Entry {
  std::string name;
  DType dtype = kFloat32;
  std::vector<int64_t> shape;
  uint64_t begin = 0, end = 0;
};

// "[2, 3]" for a diagnostic.
std::string shape_str(const std::vector<int64_t>& shape) { return Shape(shape).str(); }

bool read_uint(const Json& value, uint64_t& out) {
  if (!value.is_number_unsigned()) return false;
  out = value.get<uint64_t>();
  return true;
}

Entry parse_entry(const std::string& file, const std::string& name, const Json& info,
                  uint64_t data_bytes) {
  const std::string where = file + ": tensor '" + name + "'";
  TORCHLET_CHECK(info.is_object(), where,
                 ": Expected an object with dtype, shape and data_offsets, but got ",
                 info.type_name());
  for (const char* key : {"dtype", "shape", "data_offsets"})
    TORCHLET_CHECK(info.contains(key), where, ": Expected a '", key, "' entry, but it is missing");
  Entry entry{name, kFloat32, {}, 0, 0};
  const Json& dtype = info["dtype"];
  TORCHLET_CHECK(dtype.is_string(), where, ": Expected the dtype as a string, but got ",
                 dtype.dump());
  if (dtype == "I64") {
    entry.dtype = kInt64;
  } else if (dtype == "F64") {
    entry.dtype = kFloat64;
  } else {
    TORCHLET_CHECK(dtype == "F32", where,
                   ": Expected dtype F32, F64 or I64 (those torchlet reads), but got ",
                   dtype.dump());
  }
  const Json& shape = info["shape"];
  TORCHLET_CHECK(shape.is_array() && shape.size() <= Shape::kMaxDims, where,
                 ": Expected the shape as a list of at most ", Shape::kMaxDims, " sizes, but got ",
                 shape.dump());
  // The element count, checked to fit in int64 whatever order sizes are multiplied in.
  uint64_t nonzero = 1;
  bool empty = false;
  for (const Json& size : shape) {
    uint64_t n = 0;
    TORCHLET_CHECK(read_uint(size, n), where, ": Expected sizes >= 0 in its shape, but got ",
                   shape.dump());
    TORCHLET_CHECK(n == 0 || nonzero <= uint64_t{INT64_MAX} / n, where,
                   ": Expected a shape of fewer than 2^63 elements, but got ", shape.dump());
    if (n == 0) empty = true;
    nonzero *= n == 0 ? 1 : n;
    entry.shape.push_back(static_cast<int64_t>(n));
  }
  const Json& offsets = info["data_offsets"];
  const bool pair = offsets.is_array() && offsets.size() == 2 &&
                    read_uint(offsets[0], entry.begin) && read_uint(offsets[1], entry.end);
  TORCHLET_CHECK(pair && entry.begin <= entry.end, where,
                 ": Expected data_offsets [begin, end] with 0 <= begin <= end, but got ",
                 offsets.dump());
  TORCHLET_CHECK(entry.end <= data_bytes, where, ": Expected data_offsets within the ", data_bytes,
                 " bytes of data after the header, but got ", offsets.dump(),
                 " (a truncated file?)");
  const uint64_t numel = empty ? 0 : nonzero;
  const uint64_t item = element_size(entry.dtype);
  const uint64_t held = entry.end - entry.begin;
  const std::string want = numel <= UINT64_MAX / item
                               ? std::to_string(numel * item)
                               : std::to_string(numel) + " x " + std::to_string(item);
  TORCHLET_CHECK(held % item == 0 && held / item == numel, where, ": Expected data_offsets ",
                 "spanning ", want, " bytes (shape ", shape_str(entry.shape), " of ",
                 dtype.get<std::string>(), "), but got ", offsets.dump(), " (", held, " bytes)");
  return entry;
}

// The tensors' byte ranges must not overlap and together cover the data exactly, as the
// format requires: anything else is a damaged file.
void check_layout(const std::string& file, std::vector<Entry> entries, uint64_t data_bytes) {
  std::erase_if(entries, [](const Entry& e) { return e.begin == e.end; });
  std::stable_sort(entries.begin(), entries.end(),
                   [](const Entry& a, const Entry& b) { return a.begin < b.begin; });
  uint64_t covered = 0;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const Entry& e = entries[i];
    TORCHLET_CHECK(i == 0 || e.begin >= entries[i - 1].end, file, ": Expected tensors in separate ",
                   "bytes, but '", entries[i - 1].name, "' [", entries[i - 1].begin, ", ",
                   entries[i - 1].end, ") and '", e.name, "' [", e.begin, ", ", e.end, ") overlap");
    TORCHLET_CHECK(e.begin == covered, file, ": Expected every data byte to belong to a tensor, ",
                   "but bytes [", covered, ", ", e.begin, ") belong to none");
    covered = e.end;
  }
  TORCHLET_CHECK(covered == data_bytes, file, ": Expected every data byte to belong to a tensor, ",
                 "but bytes [", covered, ", ", data_bytes, ") belong to none");
}

Metadata parse_metadata(const std::string& file, const Json& json) {
  TORCHLET_CHECK(json.is_object(), file, ": Expected '", kMetadataKey,
                 "' to be an object of strings, but got ", json.type_name());
  Metadata metadata;
  for (const auto& [key, value] : json.items()) {
    TORCHLET_CHECK(value.is_string(), file, ": Expected string values in '", kMetadataKey,
                   "', but '", key, "' is ", value.dump());
    metadata.emplace(key, value.get<std::string>());
  }
  return metadata;
}

// The header's top-level names in their order and the first repeated one, from a SAX pass
// that builds nothing (nlohmann's parser callback rescans the parent object at the end of each
// child: quadratic in the number of tensors).
struct TopLevelNames {
  std::unordered_map<std::string, std::size_t> position;
  std::string repeated;
  int depth = 0;

  bool null() { return true; }
  bool boolean(bool) { return true; }
  bool number_integer(Json::number_integer_t) { return true; }
  bool number_unsigned(Json::number_unsigned_t) { return true; }
  bool number_float(Json::number_float_t, const Json::string_t&) { return true; }
  bool string(Json::string_t&) { return true; }
  bool binary(Json::binary_t&) { return true; }
  bool start_object(std::size_t) { return ++depth, true; }
  bool end_object() { return --depth, true; }
  bool start_array(std::size_t) { return ++depth, true; }
  bool end_array() { return --depth, true; }
  bool key(Json::string_t& name) {
    if (depth == 1 && !position.emplace(name, position.size()).second && repeated.empty())
      repeated = name;
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) {
    return false;
  }
};

struct Header {
  Json json;
  std::unordered_map<std::string, std::size_t> position;  // of each top-level name
};

// The header as JSON, refusing repeated top-level names (a JSON library keeps only one).
Header parse_header(const std::string& file, std::string_view text) {
  Json header;
  try {
    header = Json::parse(text.begin(), text.end());
  } catch (const Json::parse_error& e) {
    TORCHLET_CHECK(false, file, ": Expected a JSON header, but it is not valid JSON (byte ", e.byte,
                   " of the ", text.size(), "-byte header)");
  } catch (const Json::exception& e) {  // a number too large for a double, say
    const std::string what = e.what();  // "[json.exception.out_of_range.406] number overflow..."
    const std::size_t reason = what.find("] ");
    TORCHLET_CHECK(false, file, ": Expected a JSON header, but it is not valid JSON (",
                   reason == std::string::npos ? what : what.substr(reason + 2), ")");
  }
  TORCHLET_CHECK(header.is_object(), file, ": Expected the JSON header to be an object, but got ",
                 header.type_name());
  TopLevelNames names;
  Json::sax_parse(text.begin(), text.end(), &names);
  TORCHLET_CHECK(names.repeated.empty(), file, ": Expected each name once in the header, but '",
                 names.repeated, "' appears more than once");
  return {std::move(header), std::move(names.position)};
}

template <typename T>
Tensor make_tensor_from(std::string_view bytes, const std::vector<int64_t>& shape) {
  std::vector<T> values(bytes.size() / sizeof(T));
  if (!values.empty()) std::memcpy(values.data(), bytes.data(), bytes.size());
  return tensor(values, Shape(shape));
}

template <typename T>
void append_values(std::string& out, const Tensor& t) {
  const std::vector<T> values = t.to(kCPU).to_vector<T>();
  out.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
}

}  // namespace

void write_safetensors(const std::string& path, const NamedTensors& tensors,
                       const Metadata& metadata) {
  OrderedJson header = OrderedJson::object();
  // Entries are appended to the ordered object's vector (its operator[] searches it, which
  // would make writing many tensors quadratic); `names` finds repeats.
  auto& entries = header.get_ref<OrderedJson::object_t&>();
  if (!metadata.empty()) entries.emplace_back(kMetadataKey, metadata);
  std::set<std::string> names;
  std::string data;
  for (const auto& [name, t] : tensors) {
    TORCHLET_CHECK(!name.empty() && name != kMetadataKey, "write_safetensors: Expected tensor ",
                   "names other than '' and '", kMetadataKey, "', but got '", name, "'");
    TORCHLET_CHECK(names.insert(name).second,
                   "write_safetensors: Expected unique tensor names, but '", name,
                   "' appears more than once");
    TORCHLET_CHECK(t.defined(), "write_safetensors: Expected a defined tensor for '", name, "'");
    const char* dtype = safetensors_dtype(t.dtype());
    TORCHLET_CHECK(dtype != nullptr,
                   "write_safetensors: Expected float32, float64 or int64 tensors, but '", name,
                   "' is ", t.dtype());
    const std::size_t begin = data.size();
    if (t.dtype() == kFloat32)
      append_values<float>(data, t);
    else if (t.dtype() == kFloat64)
      append_values<double>(data, t);
    else
      append_values<int64_t>(data, t);
    entries.emplace_back(name, OrderedJson{{"dtype", dtype},
                                           {"shape", t.shape().vec()},
                                           {"data_offsets", {begin, data.size()}}});
  }
  std::string text = header.dump();
  // Spaces pad the header so the data starts 8-byte aligned, as Hugging Face's writer does.
  text.append((kLengthBytes - text.size() % kLengthBytes) % kLengthBytes, ' ');
  std::string file(kLengthBytes, '\0');
  for (std::size_t i = 0; i < kLengthBytes; ++i)
    file[i] = static_cast<char>((uint64_t{text.size()} >> (8 * i)) & 0xff);
  file += text;
  file += data;
  io::write_file_atomic(path, file);
}

Safetensors parse_safetensors(std::string_view bytes, const std::string& name) {
  TORCHLET_CHECK(bytes.size() >= kLengthBytes, name, ": Expected a safetensors file (an 8-byte ",
                 "header length, a JSON header, then data), but the file has only ", bytes.size(),
                 " bytes");
  uint64_t header_bytes = 0;
  for (std::size_t i = 0; i < kLengthBytes; ++i)
    header_bytes |= uint64_t{static_cast<unsigned char>(bytes[i])} << (8 * i);
  const uint64_t rest = bytes.size() - kLengthBytes;
  TORCHLET_CHECK(header_bytes <= rest && header_bytes <= kMaxHeaderBytes, name,
                 ": Expected a header length of at most ", std::min(rest, kMaxHeaderBytes),
                 " bytes (the file's size after the length), but got ", header_bytes,
                 " (a truncated file, or not a safetensors file)");
  const std::string_view data = bytes.substr(kLengthBytes + header_bytes);
  const Header header = parse_header(name, bytes.substr(kLengthBytes, header_bytes));

  // The entries in the header's order, so that diagnostics name the first one a reader sees
  // and empty tensors (which share offsets) keep their order.
  std::vector<const std::string*> in_order(header.position.size());
  for (const auto& [key, position] : header.position) in_order[position] = &key;
  Safetensors result;
  std::vector<Entry> entries;
  for (const std::string* key : in_order) {
    const Json& value = header.json.find(*key).value();
    if (*key == kMetadataKey)
      result.metadata = parse_metadata(name, value);
    else
      entries.push_back(parse_entry(name, *key, value, data.size()));
  }
  check_layout(name, entries, data.size());
  std::stable_sort(entries.begin(), entries.end(),
                   [](const Entry& a, const Entry& b) { return a.begin < b.begin; });
  for (const Entry& e : entries) {
    const std::string_view raw = data.substr(e.begin, e.end - e.begin);
    result.tensors.emplace_back(e.name, e.dtype == kInt64 ? make_tensor_from<int64_t>(raw, e.shape)
                                        : e.dtype == kFloat64
                                            ? make_tensor_from<double>(raw, e.shape)
                                            : make_tensor_from<float>(raw, e.shape));
  }
  return result;
}

Safetensors read_safetensors(const std::string& path) {
  return parse_safetensors(io::read_file(path), path);
}

}  // namespace torchlet::nn
