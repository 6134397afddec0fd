// TableModel: a column with many levels gets a learned embedding beside the MLP; its weights
// train (row 0, "(unknown)", stays zero), a save/load round trip through the checkpoint gives
// identical predictions, and a level never seen in training predicts through the unknown row.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "testing.h"
#include "torchlet/functional.h"
#include "torchlet/nn/checkpoint.h"
#include "torchlet/optim/optimizer.h"
#include "torchlet/train.h"
#include "torchlet/train/saved_model.h"
#include "torchlet/train/table_model.h"

namespace torchlet {
namespace {

// "s0", "s1", ... (appended: GCC 12 warns wrongly on "s" + std::to_string).
std::string shop(int k) {
  std::string name = "s";
  name += std::to_string(k);
  return name;
}

// 100 shops, each one's target its own effect (k % 5) plus x: only an embedding can learn it.
data::Table shops(const std::filesystem::path& dir) {
  std::string csv = "shop,x,y\n";
  for (int r = 0; r < 600; ++r) {
    const int k = r % 100, x = r % 7;
    csv += shop(k) + "," + std::to_string(x) + "," + std::to_string(k % 5 + 0.1 * x) + "\n";
  }
  const std::string path = (dir / "shops.csv").string();
  std::ofstream(path) << csv;
  data::Table t = data::read_table(path, {.task = "regression"});
  t.schema.fit(t.rows, t.header);
  return t;
}

// Regression options: mean squared error.
TrainOptions mse(int64_t epochs) {
  TrainOptions o{.epochs = epochs, .batch_size = 64, .seed = 0, .record_every = 1};
  o.loss = [](const Tensor& output, const Tensor& target) { return mse_loss(output, target); };
  return o;
}

Tensor train_targets(const data::Table& t) {
  std::vector<float> y(t.target.begin(), t.target.end());
  return tensor(y, {static_cast<int64_t>(y.size()), 1});
}

TEST(TableModel, AManyLevelColumnGetsAnEmbeddingThatLearns) {
  const auto dir = testing::scratch_dir();
  const data::Table t = shops(dir);
  ASSERT_EQ(t.schema.embedded().size(), 1u);
  EXPECT_EQ(table_model_width(t.schema), 1 + 16);  // x, then the 16-wide embedding
  manual_seed(0);
  TableModel model(t.schema, {table_model_width(t.schema), 32, 1});
  ASSERT_EQ(model.embeddings.size(), 1u);
  EXPECT_EQ(model.embeddings[0]->weight.shape(), Shape({101, 16}));
  const Tensor before = model.embeddings[0]->weight.clone();
  const Tensor X = t.schema.encode(t.header, t.rows, "shops.csv");
  optim::Adam adam(model.parameters(), 1e-2);
  const TrainResult fit = train(model, adam, X, train_targets(t), mse(60));
  const std::vector<float> was = before.to_vector<float>(),
                           now = model.embeddings[0]->weight.to_vector<float>();
  int changed = 0;
  for (std::size_t i = 0; i < now.size(); ++i) changed += now[i] != was[i];
  EXPECT_GT(changed, 1500);  // of the 100 trained rows' 1600 weights
  for (std::size_t i = 0; i < 16; ++i) EXPECT_EQ(now[i], 0.0f);  // the unknown row
  // The shop effect (0..4, variance 2) is learned: the loss falls far below it.
  EXPECT_LT(fit.losses.back(), 0.2f) << fit.losses.front();
}

TEST(TableModel, ASavedModelPredictsTheSameAndUnseenLevelsUseTheUnknownRow) {
  const auto dir = testing::scratch_dir();
  const data::Table t = shops(dir);
  manual_seed(1);
  const std::vector<int64_t> widths{table_model_width(t.schema), 8, 1};
  TableModel model(t.schema, widths);
  const Tensor X = t.schema.encode(t.header, t.rows, "shops.csv");
  const data::ScalerParams scaler = fit_table_scaler(t.schema, "standard", X);
  EXPECT_EQ(scaler.mean.back(), 0.0);  // the index is left as it is
  EXPECT_EQ(scaler.scale.back(), 1.0);
  optim::Adam adam(model.parameters(), 1e-2);
  train(model, adam, scaler.transform(X), train_targets(t), mse(3));
  SavedModel card;
  card.layers = widths, card.features = t.schema.input_names(), card.scaler = scaler;
  card.table = t.schema;
  const std::string path = (dir / "m.safetensors").string();
  nn::save(model, path, to_metadata(card));

  const SavedModel saved = read_saved_model(path);
  ASSERT_TRUE(saved.table);
  TableModel loaded(*saved.table, saved.layers);
  nn::load(loaded, path);
  const data::CsvRow header{1, {"x", "shop"}};
  const std::vector<data::CsvRow> rows{
      {2, {"3", shop(7)}}, {3, {"3", "never seen"}}, {4, {"3", "nor this"}}};
  const Tensor new_X = saved.scaler.transform(saved.table->encode(header, rows, "new.csv"));
  NoGradGuard no_grad;
  model.eval(), loaded.eval();
  const std::vector<float> ours = model(new_X).to_vector<float>();
  EXPECT_EQ(loaded(new_X).to_vector<float>(), ours);
  // Unseen shops share the unknown row: one prediction, not shop 7's, and no error.
  EXPECT_EQ(ours[1], ours[2]);
  EXPECT_NE(ours[0], ours[1]);
  EXPECT_TRUE(std::isfinite(ours[1]));
}

}  // namespace
}  // namespace torchlet
