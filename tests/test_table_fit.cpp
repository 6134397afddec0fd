// validate_table_members / refit_table_members: the K members trained as one batched model
// follow K lone torchlet::train runs of TableModels from seeds seed..seed+K-1 (their own batch
// orders, early stopping, restored best weights) to float rounding, with an embedding column;
// the refit takes member k after its own epoch count; the exported ensemble saves and loads.
#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "testing.h"
#include "torchlet/functional.h"
#include "torchlet/nn/checkpoint.h"
#include "torchlet/optim/optimizer.h"
#include "torchlet/random.h"
#include "torchlet/train.h"
#include "torchlet/train/table_fit.h"

namespace torchlet {
namespace {

// 300 rows: x, and a shop of 40 levels (an embedding at the default threshold) whose effect
// (k % 4) adds to the target; the last 60 rows are the validation part.
struct Data {
  data::Table table;
  Tensor X, y;
  std::vector<int64_t> widths;
  Tensor fit_X() const { return X.narrow(0, 0, 240); }
  Tensor fit_y() const { return y.narrow(0, 0, 240); }
  Tensor val_X() const { return X.narrow(0, 240, 60); }
  Tensor val_y() const { return y.narrow(0, 240, 60); }
};

Data shops(const std::filesystem::path& dir) {
  std::string csv = "shop,x,y\n";
  for (int r = 0; r < 300; ++r) {
    const int k = (r * 7) % 40, x = r % 9;
    csv += "s";
    csv +=
        std::to_string(k) + "," + std::to_string(x) + "," + std::to_string(k % 4 + 0.2 * x) + "\n";
  }
  const std::string path = (dir / "shops.csv").string();
  std::ofstream(path) << csv;
  Data d{.table = data::read_table(path, {.task = "regression"}), .X = {}, .y = {}, .widths = {}};
  d.table.schema.fit(d.table.rows, d.table.header);
  d.X = d.table.schema.encode(d.table.header, d.table.rows, path);
  std::vector<float> y(d.table.target.begin(), d.table.target.end());
  d.y = tensor(y, {static_cast<int64_t>(y.size()), 1});
  d.widths = {table_model_width(d.table.schema), 8, 1};
  return d;
}

Tensor mse(const Tensor& output, const Tensor& target) { return mse_loss(output, target); }

constexpr double kLr = 0.03;  // a run whose validation loss soon stops improving

TableFitOptions fit_options(int64_t members, int64_t epochs, int64_t batch, int64_t patience,
                            uint64_t seed) {
  TableFitOptions f;
  f.members = members, f.epochs = epochs, f.batch_size = batch, f.patience = patience;
  f.seed = seed, f.loss = "mse";
  f.optimizer = [](const std::vector<Tensor>& params) {
    return std::make_unique<optim::Adam>(params, kLr);
  };
  return f;
}

// A lone member as the table CLI trained one before: seeded TableModel, Adam, train().
struct Lone {
  std::shared_ptr<TableModel> model;
  TrainResult result;
};

Lone lone_run(const Data& d, uint64_t seed, const TableFitOptions& f, bool validate) {
  manual_seed(seed);
  Lone lone{std::make_shared<TableModel>(d.table.schema, d.widths), {}};
  optim::Adam adam(lone.model->parameters(), kLr);
  TrainOptions o{.epochs = f.epochs, .batch_size = f.batch_size, .seed = seed, .record_every = 1};
  o.loss = mse;
  if (validate) {
    o.val_input = d.val_X(), o.val_target = d.val_y();
    o.patience = f.patience, o.min_delta = f.min_delta, o.restore_best = true;
  }
  lone.result = train(*lone.model, adam, validate ? d.fit_X() : d.X, validate ? d.fit_y() : d.y, o);
  return lone;
}

void expect_same_weights(TableModel& got, TableModel& want, double tolerance) {
  const auto g = got.named_parameters(), w = want.named_parameters();
  ASSERT_EQ(g.size(), w.size());
  for (std::size_t i = 0; i < g.size(); ++i) {
    ASSERT_EQ(g[i].first, w[i].first);
    ASSERT_EQ(g[i].second.shape(), w[i].second.shape()) << g[i].first;
    const auto a = g[i].second.to_vector<float>(), b = w[i].second.to_vector<float>();
    for (std::size_t j = 0; j < a.size(); ++j)
      ASSERT_NEAR(a[j], b[j], tolerance) << g[i].first << " [" << j << "]";
  }
}

TEST(TableFit, OneMemberIsTheLoneRunOfItsSeedMiniBatchesAndEarlyStoppingIncluded) {
  const Data d = shops(testing::scratch_dir());
  ASSERT_EQ(d.table.schema.embedded().size(), 1u);
  const TableFitOptions f = fit_options(1, 200, 64, 3, 7);
  const TableValidation v = validate_table_members(d.table.schema, d.widths, d.fit_X(), d.fit_y(),
                                                   d.val_X(), d.val_y(), f);
  const Lone lone = lone_run(d, 7, f, true);
  ASSERT_EQ(lone.result.stop, StopReason::EarlyStopping);  // patience 3 runs out before 200
  const TableMemberRun& m = v.members.front();
  EXPECT_TRUE(m.early_stopped);
  EXPECT_EQ(v.end.stop, StopReason::EarlyStopping);
  EXPECT_EQ(m.epochs_done, lone.result.epochs_done);
  EXPECT_EQ(m.best_epoch, lone.result.best_epoch);
  EXPECT_NEAR(m.best_val_loss, lone.result.best_val_loss, 1e-5);
  ASSERT_EQ(m.losses.size(), lone.result.losses.size());
  for (std::size_t e = 0; e < m.losses.size(); ++e)
    EXPECT_NEAR(m.losses[e], lone.result.losses[e], 1e-4) << e;
  expect_same_weights(*v.ensemble->members.front(), *lone.model, 1e-4);
  // Row 0 of the embedding ("(unknown)") stays zero.
  const auto table = v.ensemble->members.front()->embeddings.front()->weight.to_vector<float>();
  for (int64_t c = 0; c < d.table.schema.embedded().front()->embedding_dim; ++c)
    EXPECT_EQ(table[static_cast<std::size_t>(c)], 0.0f);
}

TEST(TableFit, MemberKOfABatchedRunIsTheLoneRunOfSeedPlusK) {
  const Data d = shops(testing::scratch_dir());
  for (int64_t batch : {0, 64}) {  // full batch, and each member's own mini-batch order
    const TableFitOptions f = fit_options(3, 12, batch, 0, 3);
    const TableValidation v = validate_table_members(d.table.schema, d.widths, d.fit_X(), d.fit_y(),
                                                     d.val_X(), d.val_y(), f);
    ASSERT_EQ(v.ensemble->members.size(), 3u);
    EXPECT_EQ(v.end.epochs, 12);
    for (uint64_t k = 0; k < 3; ++k) {
      const Lone lone = lone_run(d, 3 + k, f, true);
      EXPECT_EQ(v.members[k].best_epoch, lone.result.best_epoch) << batch << " " << k;
      expect_same_weights(*v.ensemble->members[k], *lone.model, 1e-4);
    }
  }
}

// Members whose patience runs out at different epochs: each is dropped from the stack after
// its last epoch (with its optimizer state), and every member, dropped or going on, is still
// its lone run: the same epochs, best epoch and weights.
TEST(TableFit, MembersThatStopEarlyLeaveTheStackAndTheOthersFollowTheirLoneRuns) {
  const Data d = shops(testing::scratch_dir());
  const TableFitOptions f = fit_options(4, 200, 64, 3, 5);
  const TableValidation v = validate_table_members(d.table.schema, d.widths, d.fit_X(), d.fit_y(),
                                                   d.val_X(), d.val_y(), f);
  std::set<int64_t> stops;
  for (uint64_t k = 0; k < 4; ++k) {
    const Lone lone = lone_run(d, 5 + k, f, true);
    const TableMemberRun& m = v.members[k];
    stops.insert(m.epochs_done);
    EXPECT_EQ(m.epochs_done, lone.result.epochs_done) << k;
    EXPECT_EQ(m.best_epoch, lone.result.best_epoch) << k;
    ASSERT_EQ(m.losses.size(), lone.result.losses.size()) << k;
    EXPECT_NEAR(m.losses.back(), lone.result.losses.back(), 1e-4) << k;
    expect_same_weights(*v.ensemble->members[k], *lone.model, 1e-4);
  }
  EXPECT_GT(stops.size(), 1u);  // so some member left the stack before the others
  EXPECT_EQ(v.end.epochs, *stops.rbegin());
}

// With min_delta each member stops as its lone train() run with that min_delta does, and
// sooner than without it (a smaller decrease no longer counts as better).
TEST(TableFit, AMinDeltaStopsEachMemberAsTrainsMinDeltaDoes) {
  const Data d = shops(testing::scratch_dir());
  TableFitOptions f = fit_options(2, 200, 64, 3, 5);
  const TableValidation plain = validate_table_members(d.table.schema, d.widths, d.fit_X(),
                                                       d.fit_y(), d.val_X(), d.val_y(), f);
  f.min_delta = 0.01;
  const TableValidation v = validate_table_members(d.table.schema, d.widths, d.fit_X(), d.fit_y(),
                                                   d.val_X(), d.val_y(), f);
  for (uint64_t k = 0; k < 2; ++k) {
    const Lone lone = lone_run(d, 5 + k, f, true);
    const TableMemberRun& m = v.members[k];
    EXPECT_EQ(m.epochs_done, lone.result.epochs_done) << k;
    EXPECT_EQ(m.best_epoch, lone.result.best_epoch) << k;
    EXPECT_LT(m.epochs_done, plain.members[k].epochs_done) << k;
    expect_same_weights(*v.ensemble->members[k], *lone.model, 1e-4);
  }
}

TEST(TableFit, TheRefitTakesEachMemberAfterItsOwnEpochsAndSavesAsAnEnsemble) {
  const auto dir = testing::scratch_dir();
  const Data d = shops(dir);
  TableFitOptions f = fit_options(2, 0, 64, 0, 11);
  const TableRefit r = refit_table_members(d.table.schema, d.widths, d.X, d.y, {4, 2}, f);
  EXPECT_EQ(r.end.epochs, 4);
  for (uint64_t k = 0; k < 2; ++k) {
    f.epochs = k == 0 ? 4 : 2;
    const Lone lone = lone_run(d, 11 + k, f, false);
    expect_same_weights(*r.ensemble->members[k], *lone.model, 1e-4);
  }
  const std::string path = (dir / "ensemble.safetensors").string();
  nn::save(*r.ensemble, path);
  TableEnsemble loaded(d.table.schema, d.widths, 2);
  nn::load(loaded, path);
  NoGradGuard no_grad;
  const auto want = (*r.ensemble)(d.X).to_vector<float>(), got = loaded(d.X).to_vector<float>();
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], want[i]) << i;
}

TEST(TableFit, TheMembersLossesAreEachMembersOwnMeanLoss) {
  manual_seed(5);
  const Tensor output = randn({3, 10, 4});
  const Tensor classes = tensor(std::vector<int64_t>{0, 1, 2, 3, 1, 2, 0, 3, 3, 1, 0, 2, 2, 1, 0,
                                                     3, 0, 1, 2, 3, 3, 3, 0, 1, 1, 2, 0, 0, 2, 1},
                                {3, 10});
  const Tensor weight = tensor(std::vector<float>{0.5f, 2.0f, 1.0f, 3.0f});
  const Tensor values = randn({3, 10, 4});
  for (const char* loss : {"cross_entropy", "weighted", "mse", "huber"}) {
    const bool weighted = std::string(loss) == "weighted";
    const std::string name = weighted ? "cross_entropy" : loss;
    const bool classify = name == "cross_entropy";
    const Tensor target = classify ? classes : values;
    const auto got =
        table_member_losses(name, output, target, weighted ? weight : Tensor()).to_vector<float>();
    ASSERT_EQ(got.size(), 3u);
    for (int64_t k = 0; k < 3; ++k) {
      const Tensor o = output.select(0, k), t = target.select(0, k);
      const Tensor want = name == "mse"     ? mse_loss(o, t)
                          : name == "huber" ? huber_loss(o, t)
                          : weighted        ? cross_entropy(o, t, weight)
                                            : cross_entropy(o, t);
      EXPECT_NEAR(got[static_cast<std::size_t>(k)], want.item(), 1e-5) << loss << " " << k;
    }
  }
}

}  // namespace
}  // namespace torchlet
