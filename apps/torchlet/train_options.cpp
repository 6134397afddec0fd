// `torchlet train`'s command line: every option, its default and its help text; the run
// itself is train_command.cpp's.
#include <cstdint>
#include <memory>

#include "commands.h"
#include "distributed_cli.h"
#include "strict_options.h"
#include "train_args.h"
#include "train_table.h"

namespace torchlet::cli {

void add_train_command(CLI::App& app) {
  auto args = std::make_shared<TrainArgs>();
  CLI::App* cmd = app.add_subcommand(
      "train",
      "Train a classifier (an MLP, or a CNN on images); with no options, the course's Iris "
      "experiment");
  cmd->add_option("--device", args->device, "auto, cpu, cuda or cuda:N")->capture_default_str();
  const CLI::Validator int64 = whole_number(INT64_MIN, INT64_MAX);
  cmd->add_option("--epochs", args->epochs, "Passes over the training data")
      ->transform(int64)
      ->capture_default_str();
  cmd->add_option("--lr", args->lr, "Learning rate")->capture_default_str();
  cmd->add_option("--optimizer", args->optimizer, "sgd or adam")->capture_default_str();
  cmd->add_option("--momentum", args->momentum, "SGD momentum")->capture_default_str();
  cmd->add_option("--hidden", args->hidden_text, "Hidden layer widths, e.g. 10 or 64,64")
      ->capture_default_str();
  cmd->add_option("--batch-size", args->batch_size, "Rows per step; 0 = the whole training set")
      ->transform(int64)
      ->capture_default_str();
  cmd->add_option("--record-every", args->record_every, "Record the loss every N epochs; 0 = never")
      ->transform(int64)
      ->capture_default_str();
  cmd->add_option("--print-every", args->print_every, "Print a line every N epochs; 0 = never")
      ->transform(int64)
      ->capture_default_str();
  cmd->add_option("--seed", args->seed, "Seed for the initial weights and batch order")
      ->transform(whole_number_u64())
      ->capture_default_str();
  cmd->add_option("--test-size", args->test_size, "Fraction of rows held out for the test")
      ->capture_default_str();
  cmd->add_option("--split-seed", args->split_seed, "random_state of the train/test split")
      ->transform(whole_number_u64())
      ->capture_default_str();
  cmd->add_option("--scale", args->scale, "Feature scaling: minmax, standard or none")
      ->capture_default_str();
  cmd->add_option("--data", args->data,
                  "iris (built in), a CSV file with a header row, fashion-mnist (Debian's "
                  "dataset-fashion-mnist) or a folder of MNIST-style IDX files")
      ->capture_default_str();
  cmd->add_option("--model", args->model,
                  "mlp, or cnn (images only: two conv+pool blocks and two Linear layers)")
      ->capture_default_str();
  cmd->add_option("--train-limit", args->train_limit,
                  "Images: train on the first N training images only (a quick run)")
      ->transform(int64);
  cmd->add_option("--test-limit", args->test_limit, "Images: test on the first N test images only")
      ->transform(int64);
  cmd->add_option("--label", args->label,
                  "The CSV's label column, by name or 0-based index "
                  "(default: the last column)");
  cmd->add_option("--plot", args->plot, "Where to write the loss curve (SVG)")
      ->capture_default_str();
  cmd->add_flag("--no-plot", args->no_plot, "Do not write the loss curve");
  cmd->add_option("--save", args->save, "Write the trained model here (safetensors, atomically)");
  cmd->add_option("--resume", args->resume,
                  "Continue from this checkpoint until --epochs (the total) are done");
  CLI::Option* threads =
      cmd->add_option("--threads", args->threads, "CPU threads (default: one per core)")
          ->transform(whole_number(INT32_MIN, INT32_MAX));
  cmd->add_flag("--eager", args->eager,
                "Run each step op by op with autograd instead of one fused call (slower; "
                "for comparison)");
  cmd->add_flag("--graph", args->graph_on,
                "On a GPU, capture one training step as a CUDA graph and replay it (default: "
                "where it is safe: full batch, SGD)");
  cmd->add_flag("--no-graph", args->graph_off, "Never use a CUDA graph");
  cmd->add_flag("--json", args->json, "Print one JSON object on stdout (human text to stderr)");
  add_table_options(cmd, args->table);
  cmd->callback([args, threads, cmd] {
    args->threads_given = threads->count() > 0;
    args->hidden = parse_widths("--hidden", args->hidden_text);
    for (const CLI::Option* option : cmd->get_options())
      if (option->count() > 0) args->given.insert(option->get_name());
    DistributedCli dist;  // one process, or the ranks of mpirun / srun
    dist.run([&] { run_train(*args, dist); });
  });
}

}  // namespace torchlet::cli
