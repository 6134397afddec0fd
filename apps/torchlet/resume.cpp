// check_resumable: the checkpoint's model, columns and epochs against this run's.
#include "resume.h"

#include <nlohmann/json.hpp>

#include "torchlet/error.h"

namespace torchlet::cli {

using nlohmann::json;

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

}  // namespace torchlet::cli
