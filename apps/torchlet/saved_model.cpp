// SavedModel to and from a checkpoint's string metadata: names as they are, numbers and lists
// as JSON text (doubles with all 17 digits, so scaler parameters round-trip exactly).
#include "saved_model.h"

#include <nlohmann/json.hpp>

#include "torchlet/error.h"

namespace torchlet::cli {
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

// metadata[key] parsed as JSON into T.
template <typename T>
T get(const nn::Metadata& metadata, const std::string& key, const std::string& path) {
  const std::string& stored = text(metadata, key, path);
  const json value = json::parse(stored, nullptr, false);
  T out{};
  bool valid = !value.is_discarded();
  try {
    if (valid) out = value.get<T>();
  } catch (const json::exception&) {
    valid = false;
  }
  TORCHLET_CHECK(valid, path, ": Expected metadata '", key, "' of a model saved by 'torchlet ",
                 "train --save', but got '", stored, "'");
  return out;
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
  m.layers = get<std::vector<int64_t>>(metadata, "layers", path);
  m.features = get<std::vector<std::string>>(metadata, "features", path);
  m.classes = get<std::vector<std::string>>(metadata, "classes", path);
  m.scaler.kind = text(metadata, "scaler", path);
  m.epochs = get<int64_t>(metadata, "epochs", path);
  m.optimizer = text(metadata, "optimizer", path);
  m.lr = get<double>(metadata, "lr", path);
  m.momentum = get<double>(metadata, "momentum", path);
  m.torchlet_version = text(metadata, "torchlet_version", path);
  const auto state = metadata.find(nn::kOptimizerStateKey);
  if (state != metadata.end()) m.optimizer_state = state->second;
  bool widths_ok = m.layers.size() >= 2;
  for (int64_t w : m.layers) widths_ok = widths_ok && w > 0;
  TORCHLET_CHECK(widths_ok && static_cast<std::size_t>(m.layers.front()) == m.features.size() &&
                     static_cast<std::size_t>(m.layers.back()) == m.classes.size(),
                 path, ": Expected metadata 'layers' with widths > 0 from ", m.features.size(),
                 " features to ", m.classes.size(), " classes, but got ", json(m.layers).dump());
  TORCHLET_CHECK(m.epochs >= 0, path, ": Expected metadata 'epochs' >= 0, but got ", m.epochs);
  const std::size_t n = m.features.size();
  if (m.scaler.kind == "minmax") {
    m.scaler.scale = get<std::vector<double>>(metadata, "scaler_scale", path);
    m.scaler.min = get<std::vector<double>>(metadata, "scaler_min", path);
    TORCHLET_CHECK(m.scaler.scale.size() == n && m.scaler.min.size() == n, path,
                   ": Expected metadata 'scaler_scale' and 'scaler_min' with ", n,
                   " values (one per feature), but got ", m.scaler.scale.size(), " and ",
                   m.scaler.min.size());
  } else if (m.scaler.kind == "standard") {
    m.scaler.scale = get<std::vector<double>>(metadata, "scaler_scale", path);
    m.scaler.mean = get<std::vector<double>>(metadata, "scaler_mean", path);
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
  return from_metadata(nn::read_safetensors(path).metadata, path);
}

void check_resumable(const SavedModel& saved, const std::string& path, const SavedModel& fresh,
                     int64_t epochs) {
  const std::string where = "--resume " + path + ": ";
  TORCHLET_CHECK(saved.features == fresh.features, where, "Expected data with the checkpoint's ",
                 "features ", json(saved.features).dump(), ", but got ",
                 json(fresh.features).dump());
  TORCHLET_CHECK(saved.classes == fresh.classes, where, "Expected data with the checkpoint's ",
                 "classes ", json(saved.classes).dump(), ", but got ", json(fresh.classes).dump());
  TORCHLET_CHECK(saved.layers == fresh.layers, where, "Expected the checkpoint's layer widths ",
                 json(saved.layers).dump(), " (give its --hidden), but this run makes ",
                 json(fresh.layers).dump());
  TORCHLET_CHECK(saved.scaler.kind == fresh.scaler.kind, where, "Expected the checkpoint's ",
                 "--scale ", saved.scaler.kind, ", but got ", fresh.scaler.kind);
  TORCHLET_CHECK(saved.epochs < epochs, where, "Expected --epochs (the total) above the ",
                 saved.epochs, " epochs the checkpoint has done, but got ", epochs);
}

Tensor apply_scaler(const ScalerParams& scaler, const Tensor& X) {
  if (scaler.kind == "none") return X;
  const int64_t cols = X.size(1);
  std::vector<float> values = X.to_vector<float>();
  for (std::size_t i = 0; i < values.size(); ++i) {
    const auto c = static_cast<std::size_t>(static_cast<int64_t>(i) % cols);
    const double x = values[i];
    values[i] =
        static_cast<float>(scaler.kind == "minmax" ? x * scaler.scale[c] + scaler.min[c]
                                                   : (x - scaler.mean[c]) / scaler.scale[c]);
  }
  return tensor(values, X.shape());
}

}  // namespace torchlet::cli
