// data::read_table and data::TableSchema: column types inferred and overridden, missing
// markers, median imputation with indicators, one-hot levels with "(missing)", "(other)" and
// the unknown slot, embedding indices for many levels, the task inferred from the label, the
// schema's JSON round trip, the stratified split, and the one-line errors naming file, line and
// column.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>

#include "testing.h"
#include "torchlet/data/table.h"

namespace torchlet {
namespace {

using data::ColumnKind;
using testing::error_of;

std::string write(const std::filesystem::path& dir, const std::string& text) {
  const std::string path = (dir / "t.csv").string();
  std::ofstream(path) << text;
  return path;
}

const char* const kMixed =
    "age,city,member,rooms,label\n"
    "30,Paris,yes,2,a\n"
    "NA,Lyon,no,3,b\n"
    "50,,Y,2,a\n"
    "?,Paris,false,4,b\n"
    "20,null,true,2,a\n";

TEST(Table, InfersNumericBooleanAndCategoricalColumnsAndReadsMissingMarkers) {
  const auto dir = testing::scratch_dir();
  const data::Table t = data::read_table(write(dir, kMixed), {});
  ASSERT_EQ(t.schema.columns.size(), 4u);
  EXPECT_EQ(t.schema.columns[0].kind, ColumnKind::Numeric);
  EXPECT_EQ(t.schema.columns[1].kind, ColumnKind::Categorical);
  EXPECT_EQ(t.schema.columns[2].kind, ColumnKind::Boolean);
  EXPECT_EQ(t.schema.columns[3].kind, ColumnKind::Numeric);  // few integers stay numeric
  EXPECT_EQ(t.schema.task, "classification");
  EXPECT_EQ(t.schema.classes, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(t.target, (std::vector<double>{0, 1, 0, 1, 0}));
}

TEST(Table, OverridesChangeTheTypesAndDropColumns) {
  const auto dir = testing::scratch_dir();
  const data::Table t =
      data::read_table(write(dir, kMixed), {.categorical = {"rooms"}, .drop = {"city", "member"}});
  ASSERT_EQ(t.schema.columns.size(), 2u);
  EXPECT_EQ(t.schema.columns[1].name, "rooms");
  EXPECT_EQ(t.schema.columns[1].kind, ColumnKind::Categorical);
  EXPECT_EQ(t.schema.dropped, (std::vector<std::string>{"city", "member"}));
  const std::string path = (dir / "t.csv").string();
  EXPECT_EQ(error_of([&] { data::read_table(path, {.numeric = {"member"}}); }),
            path + ":2: column 3 ('member'): Expected a number (--numeric), but got 'yes'");
}

TEST(Table, ImputesTheTrainingMedianWithAnIndicatorAndOneHotsLevels) {
  const auto dir = testing::scratch_dir();
  data::Table t = data::read_table(write(dir, kMixed), {});
  t.schema.fit(t.rows, t.header);
  EXPECT_EQ(t.schema.columns[0].median, 30.0);  // of 30, 50, 20
  EXPECT_TRUE(t.schema.columns[0].indicator);
  EXPECT_FALSE(t.schema.columns[3].indicator);
  EXPECT_EQ(t.schema.columns[1].levels, (std::vector<std::string>{"Lyon", "Paris", "(missing)"}));
  EXPECT_EQ(t.schema.input_names(),
            (std::vector<std::string>{"age", "age (missing)", "city=Lyon", "city=Paris",
                                      "city=(missing)", "member", "rooms"}));
  const Tensor X = t.schema.encode(t.header, t.rows, "t.csv");
  EXPECT_EQ(X.to_vector<float>(), (std::vector<float>{30, 0, 0, 1, 0, 1, 2,  //
                                                      30, 1, 1, 0, 0, 0, 3,  //
                                                      50, 0, 0, 0, 1, 1, 2,  //
                                                      30, 1, 0, 1, 0, 0, 4,  //
                                                      20, 0, 0, 0, 1, 1, 2}));
}

TEST(Table, NewRowsTakeColumnsInAnyOrderAndUnseenCategoriesAsTheUnknownSlot) {
  const auto dir = testing::scratch_dir();
  data::Table t = data::read_table(write(dir, kMixed), {});
  t.schema.fit(t.rows, t.header);
  const data::CsvRow header{1, {"extra", "rooms", "member", "city", "age"}};
  const std::vector<data::CsvRow> rows{{2, {"x", "5", "no", "Berlin", ""}}};
  EXPECT_EQ(t.schema.encode(header, rows, "new.csv").to_vector<float>(),
            (std::vector<float>{30, 1, 0, 0, 0, 0, 5}));
  const data::CsvRow without{1, {"rooms", "member"}};
  EXPECT_EQ(error_of([&] { t.schema.encode(without, {}, "new.csv"); }),
            "new.csv:1: Expected the model's feature columns 'age', 'city', but the header has "
            "no such column");
  const std::vector<data::CsvRow> text{{2, {"x", "5", "no", "Berlin", "old"}}};
  EXPECT_EQ(error_of([&] { t.schema.encode(header, text, "new.csv"); }),
            "new.csv:2: column 5 ('age'): Expected a number, but got 'old'");
}

// "c0", "c1", ... (appended rather than "c" + ...: GCC 12 warns wrongly on that form).
std::string level(int k) {
  std::string name = "c";
  name += std::to_string(k);
  return name;
}

TEST(Table, RareLevelsShareOtherBeyondTheOneHotLimit) {
  const auto dir = testing::scratch_dir();
  std::string csv = "code,label\n";
  for (int k = 0; k < 40; ++k)
    for (int r = 0; r <= (k < 5 ? 3 : 1); ++r) csv += level(k) + "," + "ab"[r % 2] + "\n";
  data::Table t = data::read_table(write(dir, csv), {});
  t.schema.fit(t.rows, t.header, 40);  // one-hot up to 40 levels
  const auto& levels = t.schema.columns[0].levels;
  EXPECT_EQ(t.schema.columns[0].embedding_dim, 0);
  ASSERT_EQ(levels.size(), data::TableSchema::kMaxLevels + 1);
  EXPECT_EQ(levels.back(), "(other)");
  for (int k = 0; k < 5; ++k)  // the most frequent are kept
    EXPECT_NE(std::find(levels.begin(), levels.end(), level(k)), levels.end());
}

TEST(Table, AColumnWithManyLevelsIsAnEmbeddingIndexWithUnknownAndMissingRows) {
  const auto dir = testing::scratch_dir();
  std::string csv = "code,x,label\n";
  for (int k = 0; k < 100; ++k) csv += level(k) + ",1," + "ab"[k % 2] + "\n";
  csv += "NA,2,a\n";
  data::Table t = data::read_table(write(dir, csv), {});
  t.schema.fit(t.rows, t.header);
  const data::TableColumn& code = t.schema.columns[0];
  EXPECT_EQ(code.embedding_dim, 16);    // min(16, (102 + 1) / 2)
  ASSERT_EQ(code.levels.size(), 102u);  // "(unknown)", 100 levels, "(missing)"
  EXPECT_EQ(code.levels.front(), "(unknown)");
  EXPECT_EQ(code.levels.back(), "(missing)");
  EXPECT_EQ(t.schema.input_names(), (std::vector<std::string>{"x", "code (embedding index)"}));
  EXPECT_EQ(t.schema.dense_width(), 1);
  const data::CsvRow header{1, {"x", "code"}};
  const std::vector<data::CsvRow> rows{
      {2, {"3", level(0)}}, {3, {"4", "never seen"}}, {4, {"5", ""}}, {5, {"6", level(99)}}};
  const auto at = [&](const std::string& name) {
    return static_cast<float>(std::find(code.levels.begin(), code.levels.end(), name) -
                              code.levels.begin());
  };
  EXPECT_EQ(t.schema.encode(header, rows, "new.csv").to_vector<float>(),
            (std::vector<float>{3, at(level(0)), 4, 0, 5, 101, 6, at(level(99))}));
  EXPECT_NE(t.schema.describe().find("102 levels -> embedding of 16"), std::string::npos);
  const data::TableSchema back = data::TableSchema::from_json(t.schema.to_json(), "m");
  EXPECT_EQ(back.columns[0].embedding_dim, 16);
  EXPECT_EQ(back.encode(header, rows, "t").to_vector<float>(),
            t.schema.encode(header, rows, "t").to_vector<float>());
  t.schema.fit(t.rows, t.header, 200);  // a higher threshold keeps it one-hot
  EXPECT_EQ(t.schema.columns[0].embedding_dim, 0);
  EXPECT_EQ(t.schema.embedding_size(3), 2);
}

TEST(Table, ANumericLabelWithManyValuesIsARegressionTarget) {
  const auto dir = testing::scratch_dir();
  std::string csv = "x,y\n";
  for (int i = 0; i < 30; ++i) csv += std::to_string(i) + "," + std::to_string(i * 3) + "\n";
  data::Table t = data::read_table(write(dir, csv), {});
  EXPECT_EQ(t.schema.task, "regression");
  EXPECT_TRUE(t.task_inferred);
  EXPECT_EQ(t.target[4], 12.0);
  EXPECT_EQ(data::read_table(write(dir, "x,y\n1,0.5\n2,1.5\n"), {}).schema.task, "regression");
  EXPECT_EQ(data::read_table(write(dir, "x,y\n1,1\n2,2\n"), {}).schema.task, "classification");
  EXPECT_EQ(data::read_table(write(dir, "x,y\n1,1\n2,2\n"), {.task = "regression"}).schema.task,
            "regression");
  EXPECT_TRUE(data::needs_table(data::read_csv_table(write(dir, csv)), "t.csv", ""));
  EXPECT_TRUE(data::needs_table(data::read_csv_table(write(dir, "x,y\nNA,1\n2,2\n")), "", ""));
  EXPECT_FALSE(data::needs_table(data::read_csv_table(write(dir, "x,y\n1,1\n2,2\n")), "", ""));
}

TEST(Table, TheFittedSchemaRoundTripsThroughJson) {
  const auto dir = testing::scratch_dir();
  data::Table t = data::read_table(write(dir, kMixed), {.drop = {"rooms"}});
  t.schema.fit(t.rows, t.header);
  t.schema.target_mean = 0.1, t.schema.target_scale = 1.0 / 3.0;
  const data::TableSchema back = data::TableSchema::from_json(t.schema.to_json(), "m");
  EXPECT_EQ(back.to_json(), t.schema.to_json());
  EXPECT_EQ(back.target_scale, 1.0 / 3.0);
  EXPECT_EQ(back.encode(t.header, t.rows, "t").to_vector<float>(),
            t.schema.encode(t.header, t.rows, "t").to_vector<float>());
  EXPECT_EQ(error_of([] { data::TableSchema::from_json("{\"columns\": 3}", "m.safetensors"); })
                .rfind("m.safetensors: Expected metadata 'table' as a table schema, but got "
                       "'{\"columns\": 3}'",
                       0),
            0u);
}

TEST(Table, BadFilesGetOneLineNamingFileLineAndColumn) {
  const auto dir = testing::scratch_dir();
  const std::string one = write(dir, "x,y\n1,a\n2,a\n");
  EXPECT_EQ(error_of([&] { data::read_table(one, {}); }),
            one + ":2: column 2 ('y'): Expected at least two classes, but every row has 'a'");
  const std::string empty_col = write(dir, "x,z,y\n1,,a\n2,NA,b\n");
  EXPECT_EQ(error_of([&] { data::read_table(empty_col, {}); }),
            empty_col +
                ":1: column 2 ('z'): Expected some values, but every cell is empty or "
                "missing (leave it out with --drop 'z')");
  const std::string no_label = write(dir, "x,y\n1,a\n2,\n3,b\n4,NA\n");
  const data::Table t = data::read_table(no_label, {});
  EXPECT_EQ(t.skipped, 2);
  EXPECT_EQ(t.first_skipped_line, 3);
  EXPECT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(error_of([&] { data::read_table(no_label, {.strict = true}); }),
            no_label +
                ":3: column 2 ('y'): Expected a label, but the cell is empty or missing "
                "(--strict)");
  EXPECT_EQ(error_of([&] { data::read_table(no_label, {.categorical = {"w"}}); }),
            no_label + ":1: --categorical: Expected a column of the header, but there is no 'w'");
  const std::string text = write(dir, "x,y\n1,0.5\nlots,1.5\n");
  EXPECT_EQ(error_of([&] { data::read_table(text, {.numeric = {"x"}}); }),
            text + ":3: column 1 ('x'): Expected a number (--numeric), but got 'lots'");
  const std::string ragged = write(dir, "x,y\n1,a\n2\n");
  EXPECT_EQ(error_of([&] { data::read_table(ragged, {}); }),
            ragged + ":3: Expected 2 fields as in the header, but got 1");
}

TEST(Table, NaValuesReplaceTheMarkersAndIgnoreCase) {
  const auto dir = testing::scratch_dir();
  const std::string path = write(dir, "x,y\n1,a\n-1,b\nna,a\n");
  const data::Table t = data::read_table(path, {.na_values = {"-1", "NA"}});
  data::TableSchema s = t.schema;
  s.fit(t.rows, t.header);
  EXPECT_TRUE(s.is_missing("na"));
  EXPECT_TRUE(s.is_missing(""));
  EXPECT_FALSE(s.is_missing("?"));
  EXPECT_EQ(s.columns[0].median, 1.0);
}

TEST(Table, TheStratifiedSplitHoldsOutEachClassInProportion) {
  std::vector<int64_t> classes;
  for (int i = 0; i < 100; ++i) classes.push_back(i < 80 ? 0 : i < 98 ? 1 : 2);
  const auto [train, held] = data::stratified_split(classes, 0.25, 7);
  EXPECT_EQ(train.size() + held.size(), 100u);
  std::map<int64_t, int> count;
  for (int64_t r : held) ++count[classes[static_cast<std::size_t>(r)]];
  EXPECT_EQ(count[0], 20);
  EXPECT_EQ(count[1], 5);  // round(4.5)
  EXPECT_EQ(count[2], 1);  // at least one of a class with two rows
  EXPECT_EQ(data::stratified_split(classes, 0.25, 7), data::stratified_split(classes, 0.25, 7));
}

}  // namespace
}  // namespace torchlet
