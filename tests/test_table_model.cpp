// TableModel: a column with many levels gets a learned embedding beside the MLP; its weights
// train (row 0, "(unknown)", stays zero), a save/load round trip through the checkpoint gives
// identical predictions, and a level never seen in training predicts through the unknown row.
// TableEnsemble: its prediction is the mean of its members' (a classification's probabilities),
// and a checkpoint of one gives the same predictions back.
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

// A classification of the shops table (is the shop's effect at least 2?) for the ensemble.
data::Table shop_classes(const std::filesystem::path& dir) {
  std::string csv = "shop,x,big\n";
  for (int r = 0; r < 300; ++r)
    csv += shop(r % 50) + "," + std::to_string(r % 7) + "," + (r % 5 >= 2 ? "yes" : "no") + "\n";
  const std::string path = (dir / "classes.csv").string();
  std::ofstream(path) << csv;
  data::Table t = data::read_table(path, {});
  t.schema.fit(t.rows, t.header);
  return t;
}

TEST(TableEnsemble, PredictsTheMeanOfItsMembersOutputsOrProbabilities) {
  const auto dir = testing::scratch_dir();
  for (const data::Table& t : {shops(dir), shop_classes(dir)}) {
    const bool regression = t.schema.task == "regression";
    const std::vector<int64_t> widths{
        table_model_width(t.schema), 8,
        regression ? 1 : static_cast<int64_t>(t.schema.classes.size())};
    std::vector<std::shared_ptr<TableModel>> members;
    for (uint64_t seed : {1, 2, 3}) {
      manual_seed(seed);
      members.push_back(std::make_shared<TableModel>(t.schema, widths));
    }
    TableEnsemble ensemble(t.schema, members);
    EXPECT_EQ(ensemble.parameters().size(), 3 * members[0]->parameters().size());
    const Tensor X = t.schema.encode(t.header, t.rows, "t.csv").narrow(0, 0, 20);
    NoGradGuard no_grad;
    const Tensor out = ensemble(X);
    const std::vector<float> got = (regression ? out : out.softmax(1)).to_vector<float>();
    std::vector<double> mean(got.size(), 0.0);
    for (const auto& member : members) {
      const Tensor o = (*member)(X);
      const std::vector<float> v = (regression ? o : o.softmax(1)).to_vector<float>();
      for (std::size_t i = 0; i < v.size(); ++i) mean[i] += v[i] / 3.0;
    }
    ASSERT_EQ(got.size(), static_cast<std::size_t>(20 * widths.back()));
    for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], mean[i], 1e-6) << i;
    // The members differ (their seeds), so the mean is none of them.
    EXPECT_NE((*members[0])(X).to_vector<float>(), (*members[1])(X).to_vector<float>());
  }
}

TEST(TableEnsemble, ACheckpointOfOneHoldsEveryMemberAndPredictsTheSame) {
  const auto dir = testing::scratch_dir();
  const data::Table t = shops(dir);
  const std::vector<int64_t> widths{table_model_width(t.schema), 8, 1};
  manual_seed(4);
  TableEnsemble ensemble(t.schema, widths, 3);
  const Tensor X = t.schema.encode(t.header, t.rows, "shops.csv");
  const data::ScalerParams scaler = fit_table_scaler(t.schema, "standard", X);
  for (const auto& member : ensemble.members) {
    optim::Adam adam(member->parameters(), 1e-2);
    train(*member, adam, scaler.transform(X), train_targets(t), mse(2));
  }
  SavedModel card;
  card.layers = widths, card.features = t.schema.input_names(), card.scaler = scaler;
  card.table = t.schema, card.members = 3;
  const std::string path = (dir / "e.safetensors").string();
  nn::save(ensemble, path, to_metadata(card));

  const SavedModel saved = read_saved_model(path);
  ASSERT_TRUE(saved.table);
  EXPECT_EQ(saved.members, 3);
  TableEnsemble loaded(*saved.table, saved.layers, saved.members);
  nn::load(loaded, path);
  const Tensor new_X = saved.scaler.transform(X.narrow(0, 0, 50));
  NoGradGuard no_grad;
  EXPECT_EQ(loaded(new_X).to_vector<float>(), ensemble(new_X).to_vector<float>());
  // A checkpoint that claims more members than it holds is refused by name.
  card.members = 4;
  nn::save(ensemble, path, to_metadata(card));
  EXPECT_THROW(
      {
        try {
          read_saved_model(path);
        } catch (const Error& e) {
          EXPECT_NE(std::string(e.what()).find("member3.0.weight"), std::string::npos) << e.what();
          throw;
        }
      },
      Error);
  card.members = 0;  // and one of no members
  nn::save(ensemble, path, to_metadata(card));
  EXPECT_THROW(
      {
        try {
          read_saved_model(path);
        } catch (const Error& e) {
          EXPECT_NE(std::string(e.what()).find("'members' as a whole number in [1, 1024]"),
                    std::string::npos)
              << e.what();
          throw;
        }
      },
      Error);
}

}  // namespace
}  // namespace torchlet
