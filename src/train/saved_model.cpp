// SavedModel to and from a checkpoint's string metadata: names as they are, numbers and lists
// as JSON text (doubles with all 17 digits, so scaler parameters round-trip exactly).
#include "torchlet/train/saved_model.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

#include "torchlet/error.h"
#include "torchlet/train/table_model.h"

namespace torchlet {
namespace {

using nlohmann::json;

// metadata[key] as stored; errors name the file and the key.
const std::string& text(const nn::Metadata& metadata, const std::string& key,
                        const std::string& path) {
  const auto found = metadata.find(key);
  TORCHLET_CHECK(found != metadata.end(), path, ": Expected a model saved by 'torchlet train ",
                 "--save', but its metadata has no '", key, "'");
  return found->second;
}

// The largest width, epoch count and ensemble a checkpoint may hold: far above any real run, far
// below what would overflow the products computed from them.
constexpr int64_t kMaxWidth = int64_t{1} << 31;
constexpr int64_t kMaxEpochs = int64_t{1} << 53;
constexpr int64_t kMaxMembers = 1024;

// metadata[key] as JSON; errors name the file, the key and what is expected.
json parsed(const nn::Metadata& metadata, const std::string& key, const std::string& path,
            const std::string& expected) {
  const std::string& stored = text(metadata, key, path);
  const json value = json::parse(stored, nullptr, false);
  TORCHLET_CHECK(!value.is_discarded(), path, ": Expected metadata '", key, "' ", expected,
                 ", but got '", stored, "'");
  return value;
}

// A JSON whole number in [low, high]: 10.7, 1e30 (a double) and "10" (a string) are refused.
bool whole_in(const json& value, int64_t low, int64_t high) {
  if (value.is_number_unsigned())
    return value.get<uint64_t>() >= static_cast<uint64_t>(std::max<int64_t>(low, 0)) &&
           value.get<uint64_t>() <= static_cast<uint64_t>(high);
  return value.is_number_integer() && value.get<int64_t>() >= low && value.get<int64_t>() <= high;
}

int64_t get_whole(const nn::Metadata& metadata, const std::string& key, const std::string& path,
                  int64_t low, int64_t high) {
  const std::string expected =
      "as a whole number in [" + std::to_string(low) + ", " + std::to_string(high) + "]";
  const json value = parsed(metadata, key, path, expected);
  TORCHLET_CHECK(whole_in(value, low, high), path, ": Expected metadata '", key, "' ", expected,
                 ", but got '", text(metadata, key, path), "'");
  return value.get<int64_t>();
}

std::vector<int64_t> get_widths(const nn::Metadata& metadata, const std::string& path) {
  const std::string expected =
      "as a list of at least 2 whole widths in [1, " + std::to_string(kMaxWidth) + "]";
  const json value = parsed(metadata, "layers", path, expected);
  bool ok = value.is_array() && value.size() >= 2;
  for (const json& w : value) ok = ok && whole_in(w, 1, kMaxWidth);
  TORCHLET_CHECK(ok, path, ": Expected metadata 'layers' ", expected, ", but got '",
                 text(metadata, "layers", path), "'");
  return value.get<std::vector<int64_t>>();
}

double get_finite(const nn::Metadata& metadata, const std::string& key, const std::string& path) {
  const json value = parsed(metadata, key, path, "as a finite number");
  TORCHLET_CHECK(value.is_number() && std::isfinite(value.get<double>()), path,
                 ": Expected metadata '", key, "' as a finite number, but got '",
                 text(metadata, key, path), "'");
  return value.get<double>();
}

std::vector<double> get_finite_list(const nn::Metadata& metadata, const std::string& key,
                                    const std::string& path) {
  const json value = parsed(metadata, key, path, "as a list of finite numbers");
  bool ok = value.is_array();
  for (const json& x : value) ok = ok && x.is_number() && std::isfinite(x.get<double>());
  TORCHLET_CHECK(ok, path, ": Expected metadata '", key, "' as a list of finite numbers, but got '",
                 text(metadata, key, path), "'");
  return value.get<std::vector<double>>();
}

// A list of distinct names (features or classes).
std::vector<std::string> get_names(const nn::Metadata& metadata, const std::string& key,
                                   const std::string& path) {
  const json value = parsed(metadata, key, path, "as a list of names");
  bool ok = value.is_array();
  for (const json& x : value) ok = ok && x.is_string();
  TORCHLET_CHECK(ok, path, ": Expected metadata '", key, "' as a list of names, but got '",
                 text(metadata, key, path), "'");
  const auto names = value.get<std::vector<std::string>>();
  std::set<std::string> seen;
  for (const std::string& name : names)
    TORCHLET_CHECK(seen.insert(name).second, path, ": Expected distinct names in metadata '", key,
                   "', but '", name, "' appears more than once");
  return names;
}

// The MLP's weights as the metadata describes them: "<2i>.weight" [out, in] and "<2i>.bias"
// [out] for each layer, finite. Checked against the file's tensors before a model is built
// from the widths, so that no width the tensors do not back is ever allocated.
void check_tensors(const nn::Safetensors& file, const std::vector<int64_t>& layers, int64_t members,
                   const std::string& path) {
  std::map<std::string, const Tensor*> by_name;
  for (const auto& [name, t] : file.tensors) by_name[name] = &t;
  for (int64_t k = 0; k < members; ++k)
    for (std::size_t i = 0; i + 1 < layers.size(); ++i) {
      const std::string prefix =
          (members > 1 ? "member" + std::to_string(k) + "." : "") + std::to_string(2 * i) + ".";
      for (const auto& [name, shape] :
           {std::pair{prefix + "weight", Shape({layers[i + 1], layers[i]})},
            std::pair{prefix + "bias", Shape({layers[i + 1]})}}) {
        const auto found = by_name.find(name);
        TORCHLET_CHECK(found != by_name.end(), path, ": Expected a tensor '", name,
                       "' for metadata 'layers' ", json(layers).dump(), ", but there is none");
        const Tensor& t = *found->second;
        TORCHLET_CHECK(t.shape() == shape && t.dtype() == kFloat32, path, ": Expected tensor '",
                       name, "' of shape ", shape, " (float32) for metadata 'layers' ",
                       json(layers).dump(), ", but got ", t.shape(), " (", t.dtype(), ")");
        const std::vector<float> values = t.to_vector<float>();
        const auto bad =
            std::find_if(values.begin(), values.end(), [](float v) { return !std::isfinite(v); });
        TORCHLET_CHECK(bad == values.end(), path, ": Expected finite weights, but tensor '", name,
                       "' holds ",
                       std::isnan(*bad) ? "nan"
                       : *bad > 0       ? "inf"
                                        : "-inf",
                       " at index ", bad - values.begin());
      }
    }
}

}  // namespace

nn::Metadata to_metadata(const SavedModel& m) {
  nn::Metadata out{{"layers", json(m.layers).dump()},
                   {"features", json(m.features).dump()},
                   {"classes", json(m.classes).dump()},
                   {"scaler", m.scaler.kind},
                   {"epochs", json(m.epochs).dump()},
                   {"optimizer", m.optimizer},
                   {"lr", json(m.lr).dump()},
                   {"momentum", json(m.momentum).dump()},
                   {"torchlet_version", m.torchlet_version}};
  if (m.table) out["table"] = m.table->to_json();
  if (m.table) out["members"] = json(m.members).dump();
  if (m.scaler.kind == "minmax") {
    out["scaler_scale"] = json(m.scaler.scale).dump();
    out["scaler_min"] = json(m.scaler.min).dump();
  } else if (m.scaler.kind == "standard") {
    out["scaler_scale"] = json(m.scaler.scale).dump();
    out["scaler_mean"] = json(m.scaler.mean).dump();
  }
  return out;
}

SavedModel from_metadata(const nn::Metadata& metadata, const std::string& path) {
  SavedModel m;
  m.layers = get_widths(metadata, path);
  m.features = get_names(metadata, "features", path);
  m.classes = get_names(metadata, "classes", path);
  m.scaler.kind = text(metadata, "scaler", path);
  m.epochs = get_whole(metadata, "epochs", path, 0, kMaxEpochs);
  m.optimizer = text(metadata, "optimizer", path);
  m.lr = get_finite(metadata, "lr", path);
  m.momentum = get_finite(metadata, "momentum", path);
  m.torchlet_version = text(metadata, "torchlet_version", path);
  const auto state = metadata.find(nn::kOptimizerStateKey);
  if (state != metadata.end()) m.optimizer_state = state->second;
  const auto table = metadata.find("table");
  if (table != metadata.end()) m.table = data::TableSchema::from_json(table->second, path);
  if (m.table && metadata.count("members"))
    m.members = get_whole(metadata, "members", path, 1, kMaxMembers);
  const bool regression = m.table && m.table->task == "regression";
  const std::size_t outputs = regression ? 1 : m.classes.size();
  const auto inputs =
      m.table ? static_cast<std::size_t>(table_model_width(*m.table)) : m.features.size();
  bool widths_ok = m.layers.size() >= 2;
  for (int64_t w : m.layers) widths_ok = widths_ok && w > 0;
  TORCHLET_CHECK(widths_ok && static_cast<std::size_t>(m.layers.front()) == inputs &&
                     static_cast<std::size_t>(m.layers.back()) == outputs,
                 path, ": Expected metadata 'layers' with widths > 0 from ", inputs,
                 m.table ? " inputs" : " features", " to ", outputs,
                 regression ? " output" : " classes", ", but got ", json(m.layers).dump());
  TORCHLET_CHECK(!m.table || m.table->input_names() == m.features, path,
                 ": Expected metadata 'features' to be the inputs metadata 'table' makes");
  const std::size_t n = m.features.size();
  if (m.scaler.kind == "minmax") {
    m.scaler.scale = get_finite_list(metadata, "scaler_scale", path);
    m.scaler.min = get_finite_list(metadata, "scaler_min", path);
    TORCHLET_CHECK(m.scaler.scale.size() == n && m.scaler.min.size() == n, path,
                   ": Expected metadata 'scaler_scale' and 'scaler_min' with ", n,
                   " values (one per feature), but got ", m.scaler.scale.size(), " and ",
                   m.scaler.min.size());
  } else if (m.scaler.kind == "standard") {
    m.scaler.scale = get_finite_list(metadata, "scaler_scale", path);
    m.scaler.mean = get_finite_list(metadata, "scaler_mean", path);
    TORCHLET_CHECK(m.scaler.scale.size() == n && m.scaler.mean.size() == n, path,
                   ": Expected metadata 'scaler_scale' and 'scaler_mean' with ", n,
                   " values (one per feature), but got ", m.scaler.scale.size(), " and ",
                   m.scaler.mean.size());
  } else {
    TORCHLET_CHECK(m.scaler.kind == "none", path,
                   ": Expected metadata 'scaler' minmax, standard or none, but got '",
                   m.scaler.kind, "'");
  }
  return m;
}

SavedModel read_saved_model(const std::string& path) {
  const nn::Safetensors file = nn::read_safetensors(path);
  SavedModel saved = from_metadata(file.metadata, path);
  check_tensors(file, saved.layers, saved.members, path);
  return saved;
}

}  // namespace torchlet
