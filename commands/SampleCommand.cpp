//===- SampleCommand.cpp - `gptc sample` ----------------------------------===//

#include "commands/SampleCommand.h"

#include "commands/CommandOptions.h"
#include "commands/TrainCommand.h"

#include "runtime/Arena.h"
#include "runtime/Bundle.h"
#include "runtime/Checkpoint.h"
#include "runtime/OpenStepDevice.h"
#include "runtime/StepDevice.h"
#include "runtime/StepLibrary.h"
#include "runtime/data/BpeTokenizer.h"
#include "runtime/data/Tokenizer.h"
#include "runtime/data/Utf8Writer.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <memory>
#include <sstream>

namespace gptc::commands {
using namespace runtime;

const char *sampleCommandUsage() {
  return "usage: gptc sample CHECKPOINT [options]\n"
         "\n"
         "Generates text from a checkpoint (a step_S directory of gptc train\n"
         "--save-every/--checkpoint-dir, or a directory of them: the newest)\n"
         "with its bundle's compiled sampling step. The prompt follows the\n"
         "document separator; the context is its last seq_len tokens.\n"
         "\n"
         "options:\n"
         "  --prompt TEXT      the text to continue (default: none)\n"
         "  --prompt-file FILE the text to continue, read from FILE\n"
         "  --num-samples N    N continuations at once, one per row of the\n"
         "                     batch (at most training.device_batch;\n"
         "                     default 1); sample k draws with seed S + k - 1\n"
         "  --tokens N         tokens to generate (default 200)\n"
         "  --temperature T    softmax temperature; 0 = always the most\n"
         "                     likely token (default 1)\n"
         "  --top-k K          draw from the K most likely tokens only\n"
         "                     (default 0 = all)\n"
         "  --seed S           the draws' seed (default 0)\n"
         "  --tokenizer FILE   the BPE vocabulary the data was made with\n"
         "                     (default: the one the checkpoint records,\n"
         "                     from gptc data's PREFIX.tokenizer; bytes\n"
         "                     for data without a record)\n"
         "  --bundle DIR       the bundle (default: the one the checkpoint\n"
         "                     names)\n"
         "  --ids              also print the generated token ids\n";
}

namespace {

const char *kMe = "gptc sample: ";

/// splitmix64: the draws, from --seed.
class Rng {
public:
  explicit Rng(uint64_t seed) : state(seed) {}
  /// Uniform in [0, 1).
  double uniform() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return double(z >> 11) * 0x1.0p-53;
  }

private:
  uint64_t state;
};

/// The next token from `logits` (the vocabulary's, padding excluded).
int64_t choose(const float *logits, int64_t vocab, double temperature,
               int64_t topK, Rng &rng) {
  std::vector<int64_t> ids(size_t(vocab), 0);
  for (int64_t i = 0; i < vocab; ++i)
    ids[size_t(i)] = i;
  // Most likely first; ties to the lower id.
  std::stable_sort(ids.begin(), ids.end(),
                   [&](int64_t a, int64_t b) { return logits[a] > logits[b]; });
  if (temperature <= 0.0)
    return ids[0];
  size_t k = topK > 0 ? std::min<size_t>(size_t(topK), ids.size()) : ids.size();
  std::vector<double> p(k);
  double top = logits[ids[0]], sum = 0.0;
  for (size_t i = 0; i < k; ++i)
    sum += p[i] = std::exp((double(logits[ids[i]]) - top) / temperature);
  double u = rng.uniform() * sum;
  for (size_t i = 0; i < k; ++i)
    if ((u -= p[i]) < 0.0)
      return ids[i];
  return ids[k - 1];
}

} // namespace

int runSampleCommand(const std::vector<std::string> &args, std::ostream &out,
                     std::ostream &err) {
  static const std::vector<cli::OptionSpec> table = {
      {"--prompt", nullptr, cli::ValueKind::String},
      {"--prompt-file", nullptr, cli::ValueKind::String},
      {"--num-samples", nullptr, cli::ValueKind::String},
      {"--tokens", nullptr, cli::ValueKind::String},
      {"--temperature", nullptr, cli::ValueKind::String},
      {"--top-k", nullptr, cli::ValueKind::String},
      {"--seed", nullptr, cli::ValueKind::String},
      {"--tokenizer", nullptr, cli::ValueKind::String},
      {"--bundle", nullptr, cli::ValueKind::String},
      {"--ids", nullptr, cli::ValueKind::None}};
  cli::ParsedOptions o;
  bool help = false;
  if (!cli::parseOptions(args, table, "sample", err, o, help))
    return 2;
  if (help) {
    out << sampleCommandUsage();
    return 0;
  }
  if (o.positionals.size() != 1) {
    err << kMe << "error: "
        << (o.positionals.empty() ? "no checkpoint"
                                  : "more than one checkpoint")
        << " (see gptc sample --help)\n";
    return 2;
  }
  int64_t tokens = 200, topK = 0, seed = 0, samples = 1;
  for (auto [name, value] : {std::pair{"--tokens", &tokens},
                             {"--top-k", &topK},
                             {"--seed", &seed},
                             {"--num-samples", &samples}})
    if (auto v = o.get(name)) {
      std::optional<int64_t> n = cli::parseCount(*v, false);
      if (!n) {
        err << kMe << "error: " << name << " '" << *v
            << "' is not a non-negative integer\n";
        return 2;
      }
      *value = *n;
    }
  if (samples < 1) {
    err << kMe << "error: --num-samples 0: at least one sample\n";
    return 2;
  }
  if (o.has("--prompt") && o.has("--prompt-file")) {
    err << kMe << "error: --prompt and --prompt-file: give one of them\n";
    return 2;
  }
  double temperature = 1.0;
  if (auto v = o.get("--temperature")) {
    std::optional<double> t = cli::parseNumber(*v);
    if (!t || *t < 0) {
      err << kMe << "error: --temperature '" << *v
          << "' is not a number >= 0\n";
      return 2;
    }
    temperature = *t;
  }
  auto fail = [&](const std::string &message) {
    err << kMe << "error: " << message << "\n";
    return 1;
  };

  // The checkpoint, its bundle, the device and the sampling entry point.
  std::string checkpoint, error;
  if (!findCheckpoint(o.positionals[0], checkpoint, error))
    return fail(error);
  Manifest manifest;
  CheckpointState state;
  // The bundle's code runs in this process: the one the user names, or
  // the one the checkpoint names only if it is the one it was saved with.
  std::string librarySha256;
  if (auto b = o.get("--bundle"))
    state.bundle = *b;
  else if (!readCheckpointBundle(checkpoint, state.bundle, librarySha256,
                                 error))
    return fail(error + "; give the bundle with --bundle DIR");
  else if (!checkBundleOfCheckpoint(checkpoint, state.bundle, error))
    return fail(error);
  std::unique_ptr<StepDevice> device = openStepDevice(state.bundle, error);
  StepLibrary step;
  if (!device || !openBundle(state.bundle, manifest, step, error))
    return fail(error);
  if (!step.hasLogitsStep())
    return fail(state.bundle + "/" + manifest.stepLibrary.file +
                ": no gptc_logits_step (compiled before gptc could sample; "
                "recompile the spec)");
  Arena arena;
  if (!arena.allocate(manifest, error))
    return fail(error);
  arena.initialize(0);
  if (!loadCheckpoint(manifest, arena, checkpoint, state, error))
    return fail(error);
  device->useBufferUnits(step.bufferUnits());
  if (!device->attach(arena, error))
    return fail(error);

  // The prompt's tokens after the document separator.
  // The tokenizer the training data was made with, as the checkpoint
  // records it (runtime/TokenizerRecord.h); --tokenizer must agree.
  data::BpeTokenizer bpe;
  std::optional<std::string> vocabulary = o.get("--tokenizer");
  const TokenizerRecord &trained = state.tokenizer;
  using Kind = TokenizerRecord::Kind;
  if (vocabulary && trained.kind != Kind::unknown) {
    TokenizerRecord given;
    if (!bpeRecordOf(*vocabulary, given, error))
      return fail(error);
    if (trained.kind == Kind::bytes)
      return fail(checkpoint +
                  " was trained on byte tokens, not on the BPE "
                  "ids of --tokenizer " +
                  *vocabulary + " (drop --tokenizer)");
    if (given.sha256 != trained.sha256)
      return fail("--tokenizer " + *vocabulary + " is not the vocabulary " +
                  checkpoint + " was trained with: " + trained.describe());
  } else if (!vocabulary && trained.kind == Kind::bpe) {
    TokenizerRecord there;
    std::string ignored;
    if (!bpeRecordOf(trained.file, there, ignored) ||
        there.sha256 != trained.sha256)
      return fail(checkpoint + " was trained on the BPE ids of " +
                  trained.describe() + ", which is " +
                  (there.sha256.empty() ? "gone" : "changed") +
                  ": pass --tokenizer FILE with that vocabulary");
    vocabulary = trained.file;
  }
  bool usesBpe = vocabulary.has_value();
  if (usesBpe && !bpe.load(*vocabulary, error))
    return fail(error);
  const int64_t vocab = manifest.vocabSize;
  const int64_t bos = usesBpe ? bpe.endOfText() : manifest.bosToken;
  if (bos < 0 || bos >= vocab)
    return fail(manifest.path + ": the document separator " +
                std::to_string(bos) + " is outside the vocabulary (" +
                std::to_string(vocab) + ")");
  std::vector<uint16_t> context = {uint16_t(bos)};
  std::string prompt = o.get("--prompt").value_or("");
  if (auto file = o.get("--prompt-file")) {
    std::ifstream in(*file, std::ios::binary);
    std::ostringstream text;
    if (!in || !(text << in.rdbuf()))
      return fail(*file + ": cannot read the prompt (--prompt-file)");
    prompt = text.str();
  }
  if (usesBpe)
    bpe.encode(prompt, context);
  else
    data::ByteTokenizer::encode(prompt, context);
  for (uint16_t t : context)
    if (t >= vocab)
      return fail("the prompt's token " + std::to_string(t) +
                  " is outside the model's vocabulary of " +
                  std::to_string(vocab) + " (another --tokenizer?)");

  const Slot *tokenSlot = manifest.findSlot("tokens"),
             *posSlot = manifest.findSlot("sample_pos"),
             *logitSlot = manifest.findSlot("logits"),
             *stepSlot = manifest.findSlot("step");
  if (!tokenSlot || !posSlot || !logitSlot || !stepSlot)
    return fail(manifest.path + ": no tokens, sample_pos, logits or step slot");
  const int64_t B = manifest.deviceBatch, T = manifest.seqLen;
  if (samples > B)
    return fail("--num-samples " + std::to_string(samples) + ": " +
                manifest.path + " samples " + std::to_string(B) +
                " rows at a time (its training.device_batch)");
  // The logits of row b start at b * stride (the head's padded rows).
  const int64_t stride = int64_t(logitSlot->numBytes() / sizeof(float)) / B;
  int32_t *tok = arena.i32("tokens");
  int32_t *pos = arena.i32("sample_pos");
  const float *logits = arena.f32("logits");
  *arena.i64("step") = state.step; // the schedules of the trained step
  // Sample k: row k - 1, its own context, draws and text. One sample is
  // printed as it is drawn; several at the end, each under a header.
  struct Row {
    std::vector<uint16_t> context;
    std::vector<int64_t> generated;
    Rng rng;
    data::Utf8Writer text;
    std::string printed;
    bool ended = false;
  };
  std::vector<Row> rows;
  for (int64_t k = 0; k < samples; ++k)
    rows.push_back(Row{context, {}, Rng{uint64_t(seed + k)}, {}, {}, false});
  const bool streaming = samples == 1;
  for (Row &row : rows)
    row.printed = row.text.push(prompt);
  if (streaming) {
    out << rows[0].printed;
    out.flush();
  }
  for (int64_t n = 0; n < tokens; ++n) {
    // Each row holds its sample's window; rows past the samples repeat
    // the first (their logits are not read).
    for (int64_t b = 0; b < B; ++b) {
      const std::vector<uint16_t> &ctx =
          rows[size_t(b < samples ? b : 0)].context;
      size_t start = ctx.size() > size_t(T) ? ctx.size() - size_t(T) : 0;
      int64_t len = int64_t(ctx.size() - start);
      for (int64_t t = 0; t < T; ++t)
        tok[b * T + t] = t < len ? int32_t(ctx[start + size_t(t)]) : 0;
      pos[b] = int32_t(len - 1);
    }
    if (!device->upload(tokenSlot->offset, tokenSlot->numBytes(), error) ||
        !device->upload(posSlot->offset, posSlot->numBytes(), error) ||
        !device->upload(stepSlot->offset, stepSlot->numBytes(), error))
      return fail(error);
    step.logitsStep(device->ref());
    if (!device->finish("gptc_logits_step", error) ||
        !device->download(logitSlot->offset, logitSlot->numBytes(), error))
      return fail(error);
    bool any = false;
    for (int64_t b = 0; b < samples; ++b) {
      Row &row = rows[size_t(b)];
      if (row.ended)
        continue;
      int64_t next =
          choose(logits + b * stride, vocab, temperature, topK, row.rng);
      row.generated.push_back(next);
      if (next == bos) {
        row.ended = true; // the model ended the document
        continue;
      }
      any = true;
      row.context.push_back(uint16_t(next));
      std::string piece =
          row.text.push(usesBpe ? bpe.decode(uint16_t(next))
                                : data::ByteTokenizer::decodeToken(int(next)));
      if (streaming) {
        out << piece;
        out.flush();
      } else {
        row.printed += piece;
      }
    }
    if (!any)
      break;
  }
  for (int64_t k = 0; k < samples; ++k) {
    Row &row = rows[size_t(k)];
    if (!streaming)
      out << "--- sample " << k + 1 << " of " << samples << " (seed "
          << seed + k << ")\n"
          << row.printed;
    out << row.text.finish() << "\n";
    if (o.has("--ids")) {
      out << "ids:";
      for (int64_t id : row.generated)
        out << " " << id;
      out << "\n";
    }
  }
  return 0;
}

const char kSampleHelp[] =
    R"(  gptc sample CHECKPOINT --prompt TEXT [--tokens N] [--temperature T]
                                 generate text from a trained checkpoint
)";

} // namespace gptc::commands
