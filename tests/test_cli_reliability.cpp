// End-to-end reliability of `torchlet train`: SIGINT/SIGTERM mid-run (exit 130/143, a loadable
// checkpoint and a plot), a NaN loss (exit 3, the last good checkpoint kept), --save/--resume
// (the epoch count continues, weights as in one uninterrupted run), bad arguments (exit 2),
// and bit-identical runs for the same seed on the CPU.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli_runner.h"
#include "testing.h"
#include "torchlet/nn/checkpoint.h"

namespace torchlet {
namespace {

namespace fs = std::filesystem;
using testing::read_text;
using testing::run_cli;
using testing::scratch_dir;

// Starts `torchlet args...` in dir with stdout and stderr going to out.txt and err.txt. The
// previous run's files go first, so that their "device:" line cannot pass for this run's.
pid_t start_cli(const std::vector<std::string>& args, const fs::path& dir) {
  fs::remove(dir / "out.txt");
  fs::remove(dir / "err.txt");
  const pid_t pid = fork();
  if (pid != 0) return pid;
  if (chdir(dir.c_str()) != 0) _exit(127);
  dup2(open("out.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644), STDOUT_FILENO);
  dup2(open("err.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644), STDERR_FILENO);
  std::vector<char*> argv{const_cast<char*>(TORCHLET_CLI_PATH)};
  for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  execv(TORCHLET_CLI_PATH, argv.data());
  _exit(127);
}

// Sends `signal` once the run has begun training (its header is on stdout); its exit status.
int interrupt_when_training(pid_t pid, int signal, const fs::path& dir) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (read_text(dir / "out.txt").find("device:") == std::string::npos &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  kill(pid, signal);
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int64_t saved_epochs(const fs::path& path) {
  const nn::Safetensors file = nn::read_safetensors(path.string());
  return std::stoll(file.metadata.at("epochs"));
}

TEST(CliReliability, SigintStopsAfterTheEpochAndKeepsACheckpointAndAPlot) {
  const auto dir = scratch_dir();
  const std::vector<std::string> args{"train",  "--epochs",      "100000000",
                                      "--save", "m.safetensors", "--record-every",
                                      "100",    "--print-every", "0"};
  ASSERT_EQ(interrupt_when_training(start_cli(args, dir), SIGINT, dir), 130);
  const int64_t epochs = saved_epochs(dir / "m.safetensors");
  EXPECT_GT(epochs, 0);
  EXPECT_LT(epochs, 100000000);
  EXPECT_EQ(read_text(dir / "err.txt"),
            "torchlet: stopped by SIGINT after epoch " + std::to_string(epochs) +
                " of 100000000; wrote checkpoint m.safetensors and plot loss.svg\n");
  nn::Sequential model;  // the checkpoint loads into the model it describes
  model.add<nn::Linear>(4, 10);
  model.add<nn::ReLU>();
  model.add<nn::Linear>(10, 3);
  nn::load(model, (dir / "m.safetensors").string());
  EXPECT_NE(read_text(dir / "loss.svg").find("</svg>"), std::string::npos);

  // SIGTERM on a resumed run: it continues the count and stops the same way.
  std::vector<std::string> resume = args;
  resume.insert(resume.end(), {"--resume", "m.safetensors"});
  ASSERT_EQ(interrupt_when_training(start_cli(resume, dir), SIGTERM, dir), 143);
  EXPECT_GT(saved_epochs(dir / "m.safetensors"), epochs);
  EXPECT_NE(read_text(dir / "out.txt")
                .find("resumed:   m.safetensors at epoch " + std::to_string(epochs)),
            std::string::npos);
  EXPECT_NE(read_text(dir / "err.txt").find("torchlet: stopped by SIGTERM after epoch "),
            std::string::npos);
}

TEST(CliReliability, NanLossStopsWithStatusThreeAndKeepsTheLastGoodCheckpoint) {
  const auto dir = scratch_dir();
  ASSERT_EQ(run_cli("train --epochs 100 --no-plot --save m.safetensors", dir).status, 0);
  const std::string good = read_text(dir / "m.safetensors");
  testing::CliRun run = run_cli("train --lr 1e30 --eager --no-plot --save m.safetensors", dir);
  EXPECT_EQ(run.status, 3);
  EXPECT_EQ(run.err,
            "torchlet: error: training stopped: the loss became nan at epoch 2. The learning "
            "rate is probably too high: try a smaller --lr than 1e+30; m.safetensors keeps the "
            "last good checkpoint\n");
  EXPECT_EQ(read_text(dir / "m.safetensors"), good);
  EXPECT_EQ(run.out.find("test accuracy"), std::string::npos);
  // Full-batch SGD replays up to 100 epochs per call: the loss is seen at the chunk's end.
  run = run_cli("train --lr 1e30 --no-plot --save new.safetensors", dir);
  EXPECT_EQ(run.status, 3);
  EXPECT_EQ(run.err,
            "torchlet: error: training stopped: the loss became nan between epochs 1 and 100. "
            "The learning rate is probably too high: try a smaller --lr than 1e+30; no "
            "checkpoint written\n");
  EXPECT_FALSE(fs::exists(dir / "new.safetensors"));
  run = run_cli("train --lr 1e30 --optimizer adam --batch-size 30 --plot p.svg", dir);
  EXPECT_EQ(run.status, 3);
  EXPECT_NE(run.err.find("the loss became nan at epoch "), std::string::npos) << run.err;
  EXPECT_FALSE(fs::exists(dir / "p.svg"));
}

nlohmann::json train_json(const std::string& args, const fs::path& dir) {
  const testing::CliRun run = run_cli("train --json --no-plot " + args, dir);
  EXPECT_EQ(run.status, 0) << args << "\n" << run.err;
  return nlohmann::json::parse(run.out);
}

TEST(CliReliability, ResumeContinuesTheEpochCountAndMatchesOneLongRun) {
  const auto dir = scratch_dir();
  const std::string common = "--epochs 500 --record-every 100 --print-every 100 ";
  const auto whole = train_json(common + "--save whole.safetensors", dir);
  train_json("--epochs 300 --record-every 100 --save part.safetensors", dir);
  const auto rest = train_json(common + "--resume part.safetensors --save part.safetensors", dir);
  EXPECT_EQ(rest["epochs"], 500);
  EXPECT_EQ(rest["loss_epochs"], nlohmann::json({400, 500}));
  EXPECT_EQ(saved_epochs(dir / "part.safetensors"), 500);
  // Full-batch SGD without momentum has no optimizer state: resuming is exact.
  EXPECT_EQ(rest["losses"][1], whole["losses"][4]);
  const auto a = nn::read_safetensors((dir / "whole.safetensors").string());
  const auto b = nn::read_safetensors((dir / "part.safetensors").string());
  ASSERT_EQ(a.tensors.size(), b.tensors.size());
  for (std::size_t i = 0; i < a.tensors.size(); ++i)
    EXPECT_EQ(a.tensors[i].second.to_vector<float>(), b.tensors[i].second.to_vector<float>())
        << a.tensors[i].first;
}

// A run resumed with its optimizer's state repeats one uninterrupted run exactly: momentum
// buffers, Adam's moments and steps, and the mini-batch order of each epoch all continue. The
// checkpoint resumed from is not at a recorded epoch, so the recorded ones must stay aligned.
TEST(CliReliability, ResumeWithMomentumOrAdamRepeatsOneUninterruptedRun) {
  const auto dir = scratch_dir();
  for (const std::string options :
       {"--momentum 0.9", "--optimizer adam --lr 0.005", "--batch-size 16 --momentum 0.9",
        "--optimizer adam --batch-size 32 --eager --seed 4"}) {
    const std::string common = "--device cpu --record-every 100 --print-every 100 " + options;
    const auto whole = train_json(common + " --epochs 400 --save whole.safetensors", dir);
    train_json(common + " --epochs 250 --save part.safetensors", dir);
    const testing::CliRun rest = run_cli("train --json --no-plot " + common +
                                             " --epochs 400 --resume part.safetensors --save "
                                             "part.safetensors",
                                         dir);
    ASSERT_EQ(rest.status, 0) << options << "\n" << rest.err;
    EXPECT_NE(rest.err.find("resumed:   part.safetensors at epoch 250, with the optimizer's "
                            "state\nEpoch [300/400], Loss: "),
              std::string::npos)
        << options << "\n"
        << rest.err;
    const auto json = nlohmann::json::parse(rest.out);
    EXPECT_EQ(json["loss_epochs"], nlohmann::json({300, 400})) << options;
    EXPECT_EQ(json["losses"][0], whole["losses"][2]) << options;  // epoch 300, every bit
    EXPECT_EQ(json["losses"][1], whole["losses"][3]) << options;  // epoch 400
    EXPECT_EQ(json["final_loss"], whole["final_loss"]) << options;
    // Weights, optimizer state and metadata alike: the two files are the same bytes.
    EXPECT_EQ(read_text(dir / "part.safetensors"), read_text(dir / "whole.safetensors")) << options;
  }
}

// Checkpoints written before optimizer state was saved hold weights only; they still resume,
// with a fresh optimizer, and so does a checkpoint of another optimizer.
TEST(CliReliability, ResumeWithoutTheSameOptimizersStateStartsItAfresh) {
  const auto dir = scratch_dir();
  const std::string args = "--no-plot --momentum 0.9 --print-every 0 ";
  ASSERT_EQ(run_cli("train " + args + "--epochs 100 --save m.safetensors", dir).status, 0);
  nn::Safetensors file = nn::read_safetensors((dir / "m.safetensors").string());
  std::erase_if(file.tensors, [](const auto& t) { return t.first.starts_with("optimizer."); });
  EXPECT_EQ(file.tensors.size(), 4u);
  EXPECT_EQ(file.metadata.erase(nn::kOptimizerStateKey), 1u);
  nn::write_safetensors((dir / "old.safetensors").string(), file.tensors, file.metadata);

  testing::CliRun run = run_cli(
      "train " + args + "--epochs 200 --resume old.safetensors --save old.safetensors", dir);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.out.find("resumed:   old.safetensors at epoch 100 (it holds no optimizer state: "
                         "SGD's starts afresh)\n"),
            std::string::npos)
      << run.out;
  EXPECT_EQ(nn::read_safetensors((dir / "old.safetensors").string()).metadata.at("optimizer_state"),
            "SGD");
  // The same weights resumed with their momentum end elsewhere: the state was missing.
  run =
      run_cli("train " + args + "--epochs 200 --resume m.safetensors --save new.safetensors", dir);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_NE(read_text(dir / "new.safetensors"), read_text(dir / "old.safetensors"));

  run = run_cli("train --no-plot --optimizer adam --epochs 200 --resume m.safetensors", dir);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.out.find("resumed:   m.safetensors at epoch 100 (it holds SGD's optimizer state: "
                         "Adam's starts afresh)\n"),
            std::string::npos)
      << run.out;
}

// One line on stderr naming `message`, exit status 2, and no checkpoint written.
void expect_bad_input(const std::string& args, const std::string& message, const fs::path& dir) {
  testing::expect_refused("train --no-plot " + args, message, dir, "new.safetensors");
}

TEST(CliReliability, BadSaveAndResumeArgumentsExitTwoBeforeTraining) {
  const auto dir = scratch_dir();
  ASSERT_EQ(run_cli("train --epochs 50 --no-plot --save m.safetensors", dir).status, 0);
  fs::create_directory(dir / "folder");
  expect_bad_input("--save no/new.safetensors",
                   "--save: Expected a path in an existing folder, but the folder 'no' of "
                   "'no/new.safetensors' does not exist",
                   dir);
  expect_bad_input("--save folder", "--save: Expected a file path, but 'folder' is a folder", dir);
  expect_bad_input("--resume none.safetensors --save new.safetensors",
                   "none.safetensors: Cannot open the file: No such file or directory", dir);
  expect_bad_input("--resume m.safetensors --epochs 50 --save new.safetensors",
                   "--resume m.safetensors: Expected --epochs (the total) above the 50 epochs the "
                   "checkpoint has done, but got 50",
                   dir);
  expect_bad_input("--resume m.safetensors --hidden 16 --save new.safetensors",
                   "--resume m.safetensors: Expected the checkpoint's layer widths [4,10,3] (give "
                   "its --hidden), but this run makes [4,16,3]",
                   dir);
  expect_bad_input("--resume m.safetensors --scale none --save new.safetensors",
                   "--resume m.safetensors: Expected the checkpoint's --scale minmax, but got none",
                   dir);
  std::ofstream(dir / "other.csv") << "a,b,label\n1,2,x\n3,4,y\n5,6,x\n7,8,y\n9,1,x\n";
  expect_bad_input("--resume m.safetensors --data other.csv --save new.safetensors",
                   "--resume m.safetensors: Expected data with the checkpoint's features "
                   "[\"sepal length (cm)\",\"sepal width (cm)\",\"petal length (cm)\",\"petal "
                   "width (cm)\"], but got [\"a\",\"b\"]",
                   dir);
  expect_bad_input("--device cuda:7",
                   "--device cuda:7: Expected a CUDA device, but none is available (0 GPUs; this "
                   "torchlet was built without CUDA or finds no GPU). Use --device cpu or auto",
                   dir);
}

TEST(CliReliability, SameSeedGivesBitIdenticalLossesAndWeightsOnTheCpu) {
  const auto dir = scratch_dir();
  for (const std::string options :
       {"--batch-size 16 --momentum 0.9", "--optimizer adam --lr 0.005 --hidden 7,5"}) {
    const std::string args = "--device cpu --epochs 300 --record-every 10 --seed 11 " + options;
    const auto a = train_json(args + " --save a.safetensors", dir);
    const auto b = train_json(args + " --save b.safetensors", dir);
    EXPECT_EQ(a["losses"], b["losses"]) << options;  // every recorded float, exactly
    EXPECT_EQ(a["final_loss"], b["final_loss"]) << options;
    // Weights and metadata alike: the two files are the same bytes.
    EXPECT_EQ(read_text(dir / "a.safetensors"), read_text(dir / "b.safetensors")) << options;
    const auto other = train_json("--device cpu --epochs 300 --seed 12 " + options, dir);
    EXPECT_NE(other["final_loss"], a["final_loss"]) << options;
  }
}

}  // namespace
}  // namespace torchlet
