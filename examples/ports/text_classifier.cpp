// A small text classifier written as a LibTorch program would be (issue 14's fourth port; it has
// no public original): a generated corpus of four topics (fixed seed), an Embedding with a
// padding index averaged over each sentence's words, LayerNorm, a ModuleList of residual
// blocks (Linear, BatchNorm1d, GELU, a tanh update gated by a sigmoid), a Linear head,
// CrossEntropyLoss, AdamW, StepLR and clip_grad_norm_, then save and load. Every op is the
// library's own. `text_classifier --quick` trains fewer epochs for ctest and exits 1 unless
// the loss fell, the test accuracy is above kMinAccuracy (chance is 0.25) and the reloaded
// model gives the trained one's logits exactly.
#include <torchlet/torchlet.h>

#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <vector>

namespace torch = torchlet;
namespace nn = torch::nn;

const int64_t kVocab = 40;  // 0 is padding; each topic has 8 words of its own in 8..39
const int64_t kTopics = 4;
const int64_t kLength = 12;  // words per sentence, padded
const int64_t kDim = 32;
const int64_t kBlocks = 2;
const double kMinAccuracy = 0.8;

// n sentences: 4 to 12 words, each one of its topic's words with probability 0.35 and any
// word otherwise, then padding. Returns (tokens [n, kLength] int64, topics [n] int64).
std::pair<torch::Tensor, torch::Tensor> make_corpus(int64_t n) {
  auto topics = torch::randint(0, kTopics, {n});
  auto lengths = torch::randint(4, kLength + 1, {n, 1});
  auto topic_words = topics.unsqueeze(1) * 8 + 8 + torch::randint(0, 8, {n, kLength});
  auto any_words = torch::randint(1, kVocab, {n, kLength});
  auto words = torch::where(torch::rand({n, kLength}) < 0.5, topic_words, any_words);
  auto in_sentence = torch::arange(kLength).unsqueeze(0) < lengths;
  return {torch::where(in_sentence, words, 0), topics};
}

// x + tanh(GELU(BatchNorm(Linear(x)))) * sigmoid(gate(x)): x [B, dim].
struct Block : nn::Module {
  explicit Block(int64_t dim) : fc(dim, dim), bn(dim), gate(dim, dim) {
    register_module("fc", fc);
    register_module("bn", bn);
    register_module("act", act);
    register_module("gate", gate);
  }

  torch::Tensor forward(const torch::Tensor& x) override {
    auto h = act(bn(fc(x)));
    return x + torch::tanh(h) * torch::sigmoid(gate(x));
  }

  nn::Linear fc;
  nn::BatchNorm1d bn;
  nn::GELU act;
  nn::Linear gate;
};

struct TextClassifier : nn::Module {
  TextClassifier() : embedding(kVocab, kDim, /*padding_idx=*/0), norm({kDim}), head(kDim, kTopics) {
    for (int64_t i = 0; i < kBlocks; ++i) blocks->push_back(std::make_shared<Block>(kDim));
    register_module("embedding", embedding);
    register_module("norm", norm);
    register_module("blocks", blocks);
    register_module("head", head);
  }

  // tokens [B, kLength] -> logits [B, kTopics].
  torch::Tensor forward(const torch::Tensor& tokens) override {
    auto mask = tokens.ne(0).to(torch::kFloat32).unsqueeze(-1);  // [B, L, 1]
    auto x = (embedding(tokens) * mask).sum(1) / mask.sum(1).clamp_min(1);
    x = norm(x);
    for (const auto& block : *blocks) x = (*block)(x);
    return head(x);
  }

  nn::Embedding embedding;
  nn::LayerNorm norm;
  nn::ModuleList blocks;
  nn::Linear head;
};

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  torch::manual_seed(0);
  auto [train_tokens, train_topics] = make_corpus(2048);
  auto [test_tokens, test_topics] = make_corpus(512);

  TextClassifier model;
  std::cout << model << std::endl;

  auto train_loader = torch::data::make_data_loader(
      torch::data::datasets::TensorDataset(train_tokens, train_topics), /*batch_size=*/64);
  nn::CrossEntropyLoss criterion;
  torch::optim::AdamW optimizer(model.parameters(), torch::optim::AdamWOptions(1e-2));
  torch::optim::StepLR scheduler(optimizer, /*step_size=*/4, /*gamma=*/0.5);

  const int64_t epochs = quick ? 10 : 30;
  std::vector<double> epoch_losses;
  for (int64_t epoch = 1; epoch <= epochs; ++epoch) {
    model.train();
    double total = 0;
    for (const auto& batch : *train_loader) {
      optimizer.zero_grad();
      auto loss = criterion(model(batch.data), batch.target);
      loss.backward();
      nn::utils::clip_grad_norm_(model.parameters(), /*max_norm=*/1.0);
      optimizer.step();
      total += loss.item();
    }
    scheduler.step();
    epoch_losses.push_back(total / train_loader->size());
    std::printf("epoch %2ld: loss %.4f, lr %.5f\n", epoch, epoch_losses.back(),
                scheduler.get_last_lr()[0]);
  }

  torch::NoGradGuard no_grad;
  model.eval();
  auto logits = model(test_tokens);
  auto accuracy = (logits.argmax(1) == test_topics).to(torch::kFloat32).mean().item();

  nn::save(model, "text_classifier.safetensors");
  TextClassifier loaded;
  nn::load(loaded, "text_classifier.safetensors");
  loaded.eval();
  const bool same = (loaded(test_tokens) == logits).all().item<bool>();

  std::printf("first loss %.4f, last loss %.4f, test accuracy %.3f, reloaded model %s\n",
              epoch_losses.front(), epoch_losses.back(), accuracy,
              same ? "identical" : "DIFFERENT");
  return epoch_losses.back() < epoch_losses.front() && accuracy > kMinAccuracy && same ? 0 : 1;
}
