// read_csv and write_csv: Iris round-trips exactly, labels encode as scikit-learn's
// LabelEncoder does, the forgiving parts of real files (BOM, CRLF, quotes, whitespace, blank
// lines) parse, and every error message, with its file, line and column, is pinned.
#include <stdlib.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "testing.h"
#include "torchlet/data/csv.h"
#include "torchlet/io/file.h"

namespace torchlet::data {
namespace {

namespace fs = std::filesystem;
using testing::error_of;
using testing::read_text;
using testing::TempFolder;
using Names = std::vector<std::string>;

// Each test writes its CSV text to "data.csv" in a temp folder and reads it back.
class CsvTest : public ::testing::Test {
 protected:
  Dataset read(const std::string& text, const std::string& label = "") {
    io::write_file_atomic(path_, text);
    return read_csv(path_, label);
  }
  // The message read() throws with the file path written as "data.csv".
  std::string error(const std::string& text, const std::string& label = "") {
    std::string message = error_of([&] { read(text, label); });
    if (message.starts_with(path_)) message.replace(0, path_.size(), "data.csv");
    return message;
  }

  TempFolder dir_;
  std::string path_ = dir_ / "data.csv";
};

TEST_F(CsvTest, IrisRoundTripsExactly) {
  const Dataset iris = load_iris();
  write_csv(path_, iris);
  const std::string text = read_text(path_);
  EXPECT_TRUE(text.starts_with(
      "sepal length (cm),sepal width (cm),petal length (cm),petal width (cm),label\n"
      "5.1,3.5,1.4,0.2,setosa\n4.9,3,1.4,0.2,setosa\n"))
      << text.substr(0, 200);
  const Dataset back = read_csv(path_);
  EXPECT_EQ(back.X.shape(), Shape({150, 4}));
  EXPECT_EQ(back.X.to_vector<float>(), iris.X.to_vector<float>());  // bit for bit
  EXPECT_EQ(back.y.to_vector<int64_t>(), iris.y.to_vector<int64_t>());
  EXPECT_EQ(back.feature_names, iris.feature_names);
  EXPECT_EQ(back.class_names, iris.class_names);
}

TEST_F(CsvTest, IntegerLabelsSortNumerically) {
  const Dataset data = read("x,y\n1,10\n2,-1\n3,2\n4,10\n5,+2\n");
  EXPECT_EQ(data.class_names, (Names{"-1", "2", "10"}));
  EXPECT_EQ(data.y.to_vector<int64_t>(), (std::vector<int64_t>{2, 0, 1, 2, 1}));
  EXPECT_EQ(data.feature_names, Names{"x"});
  EXPECT_EQ(data.X.to_vector<float>(), (std::vector<float>{1, 2, 3, 4, 5}));
}

TEST_F(CsvTest, NameLabelsSortByText) {
  // "10" is not an integer once "b" is among the labels: every label sorts as text, bytewise.
  const Dataset data = read("x,species\n0,b\n1,a\n2,C\n3,10\n4,a\n");
  EXPECT_EQ(data.class_names, (Names{"10", "C", "a", "b"}));
  EXPECT_EQ(data.y.to_vector<int64_t>(), (std::vector<int64_t>{3, 2, 1, 0, 2}));
}

TEST_F(CsvTest, LabelColumnByNameOrIndex) {
  const std::string text = "kind,a,b\n0,1,2\n1,3,4\n";
  for (const char* label : {"kind", "0"}) {
    const Dataset data = read(text, label);
    EXPECT_EQ(data.feature_names, (Names{"a", "b"})) << label;
    EXPECT_EQ(data.X.to_vector<float>(), (std::vector<float>{1, 2, 3, 4})) << label;
  }
  for (const char* label : {"a", "1"}) {
    const Dataset data = read(text, label);
    EXPECT_EQ(data.feature_names, (Names{"kind", "b"})) << label;
    EXPECT_EQ(data.X.to_vector<float>(), (std::vector<float>{0, 2, 1, 4})) << label;
  }
  // A column named "2" wins over the column with index 2.
  EXPECT_EQ(read("x,2,y\n1,0,5\n2,1,6\n", "2").feature_names, (Names{"x", "y"}));
}

TEST_F(CsvTest, ForgivesBomCrlfQuotesWhitespaceAndBlankLines) {
  const Dataset data = read(
      "\xEF\xBB\xBF\"width, cm\" , height ,\"kind \"\"A\"\"\"\r\n"
      "\r\n"
      " 1.5 , -2e1 , \"x, y\"\r\n"
      "+3,4.25,\"say \"\"hi\"\"\"\r\n"
      "5,6,\"x, y\"\r\n"
      "\r\n  \r\n");
  EXPECT_EQ(data.feature_names, (Names{"width, cm", "height"}));
  EXPECT_EQ(data.class_names, (Names{"say \"hi\"", "x, y"}));
  EXPECT_EQ(data.y.to_vector<int64_t>(), (std::vector<int64_t>{1, 0, 1}));
  EXPECT_EQ(data.X.to_vector<float>(), (std::vector<float>{1.5f, -20, 3, 4.25f, 5, 6}));
  // No final line break, and a lone last line, are fine too.
  EXPECT_EQ(read("a,b\n1,p\n2,q").y.to_vector<int64_t>(), (std::vector<int64_t>{0, 1}));
}

// Names and labels reach the reports and the JSON: bytes that are not UTF-8 are refused with
// the line and the column (in characters) an editor shows.
TEST_F(CsvTest, TextThatIsNotUtf8IsRefusedWithLineAndColumn) {
  EXPECT_EQ(error("a,b,label\n1,2,x\n3,4,caf\xe9\n"),
            "data.csv:3:8: Expected UTF-8 text, but got the byte 0xe9");
  EXPECT_EQ(error("a,\xc3\xa9\xff,label\n1,2,x\n"),
            "data.csv:1:4: Expected UTF-8 text, but got the byte 0xff");
  EXPECT_EQ(error("a,b,label\n1,2,\xc0\xaf\n"),  // an overlong '/'
            "data.csv:2:5: Expected UTF-8 text, but got the byte 0xc0");
  EXPECT_EQ(error("a,b,label\n1,2,\xed\xa0\x80\n"),  // a UTF-16 surrogate
            "data.csv:2:5: Expected UTF-8 text, but got the byte 0xed");
  EXPECT_EQ(error("a,b,label\n1,2,\xf0\x9f\x98"),  // cut at the end of the file
            "data.csv:2:5: Expected UTF-8 text, but got the byte 0xf0");
  EXPECT_EQ(read("a,b,label\n1,2,\xf0\x9f\x98\x80\n3,4,\xc3\xa9\n").class_names,
            (Names{"\xc3\xa9", "\xf0\x9f\x98\x80"}));
}

TEST_F(CsvTest, MissingAndEmptyFiles) {
  EXPECT_EQ(error_of([&] { read_csv(dir_ / "missing.csv"); }),
            dir_ / "missing.csv" + ": Cannot open the file: No such file or directory");
  EXPECT_EQ(error_of([&] { read_csv(dir_.path()); }),
            dir_.path() + ": Expected a regular file, but it is a folder");
  const std::string empty =
      "data.csv: Expected a header row and at least one data row, but the file is empty";
  EXPECT_EQ(error(""), empty);
  EXPECT_EQ(error("\xEF\xBB\xBF\r\n \n\n"), empty);
  EXPECT_EQ(error("a,b\n\n"),
            "data.csv: Expected a header row and at least one data row, but got only the header");
}

TEST_F(CsvTest, HeaderErrors) {
  EXPECT_EQ(error("only\n1\n"),
            "data.csv:1: Expected at least two columns (features and a label), but got only "
            "'only'");
  EXPECT_EQ(error("\na,,c\n1,2,3\n"),
            "data.csv:2: column 2: Expected a column name, but got an empty field");
  EXPECT_EQ(error("x,y,x\n1,2,3\n"),
            "data.csv:1: column 3 ('x'): Expected unique column names, but column 1 has the same "
            "name");
  EXPECT_EQ(error("sepal length,sepal width,species\n1,2,a\n", "petal"),
            "data.csv: Expected the label column to be one of 'sepal length', 'sepal width', "
            "'species' or a 0-based index below 3, but got 'petal'");
  EXPECT_EQ(error("a,b\n1,x\n", "2"),
            "data.csv: Expected the label column to be one of 'a', 'b' or a 0-based index below "
            "2, but got '2'");
}

TEST_F(CsvTest, RowErrorsNameLineAndColumn) {
  const std::string header = "a,sepal width,c,d,label\n";
  const std::string row = "1,2,3,4,x\n";
  // Line numbers count blank lines and CRLF lines, as an editor does.
  EXPECT_EQ(error(header + row + "\r\n" + row + "1,2,3,x\n"),
            "data.csv:5: Expected 5 fields as in the header, but got 4");
  EXPECT_EQ(error(header + row + row + row + row + row + "1,abc,3,4,x\n"),
            "data.csv:7: column 2 ('sepal width'): Expected a number, but got 'abc'");
  EXPECT_EQ(error(header + "1, ,3,4,x\n"),
            "data.csv:2: column 2 ('sepal width'): Expected a number, but got an empty field");
  for (const std::string bad : {"nan", "inf", "-Infinity", "1e39"}) {
    EXPECT_EQ(
        error(header + "1," + bad + ",3,4,x\n"),
        "data.csv:2: column 2 ('sepal width'): Expected a finite number (float32), but got '" +
            bad + "'");
  }
  for (const std::string bad : {"1.5x", "0x10", "--1", "+-1", "1 2", "one"}) {
    EXPECT_EQ(error(header + "1," + bad + ",3,4,x\n"),
              "data.csv:2: column 2 ('sepal width'): Expected a number, but got '" + bad + "'");
  }
  EXPECT_EQ(error(header + row + "1,2,3,4,  \n"),
            "data.csv:3: column 5 ('label'): Expected a label, but got an empty field");
  // Too small for a double rounds to 0, as Python's float() does; a float32 subnormal stays.
  const std::vector<float> tiny =
      read(header + "1,1e-400,3,4,x\n5,1e-40,7,8,y\n").X.to_vector<float>();
  EXPECT_EQ(tiny[1], 0.0f);
  EXPECT_EQ(tiny[5], 1e-40f);
}

TEST_F(CsvTest, QuoteErrorsAndLineNumbersAfterQuotedLineBreaks) {
  EXPECT_EQ(error("a,b\n1,\"open\n2,x\n"),
            "data.csv:2: column 2: Expected a closing quote, but the file ends inside the quoted "
            "field");
  EXPECT_EQ(error("a,b\n1,\"x\"y\n"),
            "data.csv:2: column 2: Expected a ',' or the end of the line after a closing quote, "
            "but got 'y'");
  // A record that spans lines 2-3 moves the next record to line 4.
  EXPECT_EQ(error("a,b\n1,\"two\nlines\"\n2\n"),
            "data.csv:4: Expected 2 fields as in the header, but got 1");
}

TEST_F(CsvTest, AtLeastTwoClasses) {
  EXPECT_EQ(error("x,label\n1,setosa\n2,setosa\n"),
            "data.csv: Expected at least two classes in column 'label', but got only 'setosa'");
}

TEST_F(CsvTest, WriteQuotesWhatNeedsQuotingAndAvoidsAFeatureNamedLabel) {
  Dataset data{tensor({0.1f, -2.5f, 1e-8f, 3e20f}, {2, 2}),
               tensor({1, 0}, {2}),
               {"label", " padded,name "},
               {"a \"quoted\" class", "plain"}};
  write_csv(path_, data);
  EXPECT_EQ(read_text(path_),
            "label,\" padded,name \",label.1\n"
            "0.1,-2.5,plain\n"
            "1e-08,3e+20,\"a \"\"quoted\"\" class\"\n");
  const Dataset back = read_csv(path_);
  EXPECT_EQ(back.feature_names, data.feature_names);
  EXPECT_EQ(back.class_names, data.class_names);
  EXPECT_EQ(back.X.to_vector<float>(), data.X.to_vector<float>());
  EXPECT_EQ(back.y.to_vector<int64_t>(), data.y.to_vector<int64_t>());
}

TEST_F(CsvTest, WriteErrors) {
  Dataset data{tensor({1.0f, NAN}, {1, 2}), tensor({0}, {1}), {"a", "b"}, {"x", "y"}};
  EXPECT_EQ(error_of([&] { write_csv(path_, data); }),
            "Expected finite features, but row 0, column 1 ('b') is nan");
  data.X = tensor({1.0f, 2.0f}, {1, 2});
  data.y = tensor({2}, {1});
  EXPECT_EQ(error_of([&] { write_csv(path_, data); }),
            "Expected labels in [0, 2) (indices into class_names), but row 0 has 2");
  data.feature_names = {"a"};
  EXPECT_EQ(error_of([&] { write_csv(path_, data); }),
            "Expected 2 feature names (one per column of X), but got 1");
  EXPECT_FALSE(fs::exists(path_));  // nothing written on error
}

}  // namespace
}  // namespace torchlet::data
