//===- SampleCommand.cpp - `gptc sample` ----------------------------------===//

#include "commands/SampleCommand.h"

#include "commands/BundleByDigest.h"
#include "commands/CommandOptions.h"

#include "runtime/Arena.h"
#include "runtime/Bundle.h"
#include "runtime/Checkpoint.h"
#include "runtime/Files.h"
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
#include <optional>
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
         "  --bundle DIR       the bundle (default: the one in this user's\n"
         "                     compile cache whose step library the\n"
         "                     checkpoint was saved with; the path a\n"
         "                     checkpoint records is never opened)\n"
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

/// What a step returns: the command's exit code when it ends the command
/// there, nothing when the next step follows.
using Exit = std::optional<int>;

/// One error line: exit code 1.
int fail(std::ostream &err, const std::string &message) {
  err << kMe << "error: " << message << "\n";
  return 1;
}

/// The command line's settings, their numbers checked.
struct SampleSettings {
  cli::ParsedOptions options;
  int64_t tokens = 200, topK = 0, seed = 0, samples = 1;
  double temperature = 1.0;
};

/// The command line: usage, --help, one checkpoint, numbers that are
/// numbers and settings that agree.
Exit parseArguments(const std::vector<std::string> &args, std::ostream &out,
                    std::ostream &err, SampleSettings &s) {
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
  cli::ParsedOptions &o = s.options;
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
  for (auto [name, value] : {std::pair{"--tokens", &s.tokens},
                             {"--top-k", &s.topK},
                             {"--seed", &s.seed},
                             {"--num-samples", &s.samples}})
    if (auto v = o.get(name)) {
      std::optional<int64_t> n = cli::parseCount(*v, false);
      if (!n) {
        err << kMe << "error: " << name << " '" << *v
            << "' is not a non-negative integer\n";
        return 2;
      }
      *value = *n;
    }
  if (s.samples < 1) {
    err << kMe << "error: --num-samples 0: at least one sample\n";
    return 2;
  }
  if (o.has("--prompt") && o.has("--prompt-file")) {
    err << kMe << "error: --prompt and --prompt-file: give one of them\n";
    return 2;
  }
  if (auto v = o.get("--temperature")) {
    std::optional<double> t = cli::parseNumber(*v);
    if (!t || *t < 0) {
      err << kMe << "error: --temperature '" << *v
          << "' is not a number >= 0\n";
      return 2;
    }
    s.temperature = *t;
  }
  return std::nullopt;
}

/// A checkpoint loaded into its bundle's arena on the bundle's device.
struct LoadedCheckpoint {
  std::string checkpoint;
  Manifest manifest;
  CheckpointState state;
  StepLibrary step;
  std::unique_ptr<StepDevice> device;
  Arena arena;
};

/// The checkpoint, its bundle (the one the user names, or the one the
/// checkpoint names only if it is the one it was saved with: its code runs
/// in this process), the device and the sampling entry point.
Exit openCheckpoint(const SampleSettings &s, std::ostream &err,
                    LoadedCheckpoint &c) {
  const cli::ParsedOptions &o = s.options;
  std::string error;
  if (!findCheckpoint(o.positionals[0], c.checkpoint, error))
    return fail(err, error);
  // Code runs only from a bundle the user names or from the user's own
  // compile cache, found by the digest the checkpoint records
  // (BundleByDigest.h): never from the path a checkpoint names.
  std::string librarySha256, recorded;
  if (auto b = o.get("--bundle"))
    c.state.bundle = *b;
  else if (!readCheckpointBundle(c.checkpoint, recorded, librarySha256, error))
    return fail(err, error + "; give the bundle with --bundle DIR");
  else if (!findCachedBundle(librarySha256, c.state.bundle))
    return fail(err, c.checkpoint + " was saved from the bundle " + recorded +
                         " (step library SHA-256 " +
                         librarySha256.substr(0, 12) +
                         "...), which is not in this user's compile cache; "
                         "gptc runs no code a checkpoint names: give the "
                         "bundle with --bundle DIR");
  else if (!checkBundleOfCheckpoint(c.checkpoint, c.state.bundle, error))
    return fail(err, error);
  c.device = openStepDevice(c.state.bundle, error);
  if (!c.device || !openBundle(c.state.bundle, c.manifest, c.step, error))
    return fail(err, error);
  if (!c.step.hasLogitsStep())
    return fail(err, c.state.bundle + "/" + c.manifest.stepLibrary.file +
                         ": no gptc_logits_step (compiled before gptc could "
                         "sample; recompile the spec)");
  if (!c.arena.allocate(c.manifest, error))
    return fail(err, error);
  c.arena.initialize(0);
  if (!runtime::loadCheckpoint(c.manifest, c.arena, c.checkpoint, c.state,
                               error))
    return fail(err, error);
  c.device->useBufferUnits(c.step.bufferUnits());
  if (!c.device->attach(c.arena, error))
    return fail(err, error);
  return std::nullopt;
}

/// The prompt as tokens after the document separator, in the tokenizer
/// the training data was made with.
struct Prompt {
  std::string text;
  std::vector<uint16_t> context;
  bool usesBpe = false;
  data::BpeTokenizer bpe;
  int64_t bos = 0;

  std::string decode(int64_t token) const {
    return usesBpe ? bpe.decode(uint16_t(token))
                   : data::ByteTokenizer::decodeToken(int(token));
  }
};

/// The vocabulary as the checkpoint records it (runtime/TokenizerRecord.h;
/// --tokenizer must agree): `vocabulary` set for BPE, unset for bytes.
Exit chooseTokenizer(const SampleSettings &s, const LoadedCheckpoint &c,
                     std::ostream &err,
                     std::optional<std::string> &vocabulary) {
  std::string error;
  vocabulary = s.options.get("--tokenizer");
  const TokenizerRecord &trained = c.state.tokenizer;
  using Kind = TokenizerRecord::Kind;
  if (vocabulary && trained.kind != Kind::unknown) {
    TokenizerRecord given;
    if (!bpeRecordOf(*vocabulary, given, error))
      return fail(err, error);
    if (trained.kind == Kind::bytes)
      return fail(err, c.checkpoint +
                           " was trained on byte tokens, not on the BPE "
                           "ids of --tokenizer " +
                           *vocabulary + " (drop --tokenizer)");
    if (given.sha256 != trained.sha256)
      return fail(err, "--tokenizer " + *vocabulary +
                           " is not the vocabulary " + c.checkpoint +
                           " was trained with: " + trained.describe());
  } else if (!vocabulary && trained.kind == Kind::bpe) {
    TokenizerRecord there;
    std::string ignored;
    if (!bpeRecordOf(trained.file, there, ignored) ||
        there.sha256 != trained.sha256)
      return fail(err, c.checkpoint + " was trained on the BPE ids of " +
                           trained.describe() + ", which is " +
                           (there.sha256.empty() ? "gone" : "changed") +
                           ": pass --tokenizer FILE with that vocabulary");
    vocabulary = trained.file;
  }
  return std::nullopt;
}

/// The prompt's tokens after the document separator, each in the model's
/// vocabulary.
Exit readPrompt(const SampleSettings &s, const LoadedCheckpoint &c,
                std::ostream &err, Prompt &p) {
  std::optional<std::string> vocabulary;
  if (Exit e = chooseTokenizer(s, c, err, vocabulary))
    return e;
  std::string error;
  p.usesBpe = vocabulary.has_value();
  if (p.usesBpe && !p.bpe.load(*vocabulary, error))
    return fail(err, error);
  const int64_t vocab = c.manifest.vocabSize;
  p.bos = p.usesBpe ? p.bpe.endOfText() : c.manifest.bosToken;
  if (p.bos < 0 || p.bos >= vocab)
    return fail(err, c.manifest.path + ": the document separator " +
                         std::to_string(p.bos) +
                         " is outside the vocabulary (" +
                         std::to_string(vocab) + ")");
  p.context = {uint16_t(p.bos)};
  p.text = s.options.get("--prompt").value_or("");
  if (auto file = s.options.get("--prompt-file")) {
    std::string error;
    if (!readRegularFile(*file, "prompt file (--prompt-file)", 64 << 20, p.text,
                         error))
      return fail(err, error);
    if (p.text.empty())
      return fail(err, *file + ": the prompt file (--prompt-file) is empty");
  }
  if (p.usesBpe)
    p.bpe.encode(p.text, p.context);
  else
    data::ByteTokenizer::encode(p.text, p.context);
  for (uint16_t t : p.context)
    if (t >= vocab)
      return fail(err, "the prompt's token " + std::to_string(t) +
                           " is outside the model's vocabulary of " +
                           std::to_string(vocab) + " (another --tokenizer?)");
  return std::nullopt;
}

/// Sample k: row k - 1 of the batch, its own context, draws and text.
struct SampleRow {
  std::vector<uint16_t> context;
  std::vector<int64_t> generated;
  Rng rng;
  data::Utf8Writer text;
  std::string printed;
  bool ended = false;
};

/// Draws --tokens tokens for every sample, one sampling step a token (or
/// until every sample ended its document). One sample is printed as it is
/// drawn; several are kept for printSamples.
Exit drawSamples(const SampleSettings &s, LoadedCheckpoint &c, const Prompt &p,
                 std::ostream &out, std::ostream &err,
                 std::vector<SampleRow> &rows) {
  const Manifest &m = c.manifest;
  const Slot *tokenSlot = m.findSlot("tokens"),
             *posSlot = m.findSlot("sample_pos"),
             *logitSlot = m.findSlot("logits"), *stepSlot = m.findSlot("step");
  if (!tokenSlot || !posSlot || !logitSlot || !stepSlot)
    return fail(err, m.path + ": no tokens, sample_pos, logits or step slot");
  const int64_t B = m.deviceBatch, T = m.seqLen, vocab = m.vocabSize;
  if (s.samples > B)
    return fail(err, "--num-samples " + std::to_string(s.samples) + ": " +
                         m.path + " samples " + std::to_string(B) +
                         " rows at a time (its training.device_batch)");
  // The logits of row b start at b * stride (the head's padded rows).
  const int64_t stride = int64_t(logitSlot->numBytes() / sizeof(float)) / B;
  int32_t *tok = c.arena.i32("tokens");
  int32_t *pos = c.arena.i32("sample_pos");
  const float *logits = c.arena.f32("logits");
  *c.arena.i64("step") = c.state.step; // the schedules of the trained step
  const Slot *totalSlot = m.findSlot("total_steps");
  if (totalSlot)
    *c.arena.i64("total_steps") =
        c.state.runSteps > 0 ? c.state.runSteps : m.run.steps;
  for (int64_t k = 0; k < s.samples; ++k)
    rows.push_back(
        SampleRow{p.context, {}, Rng{uint64_t(s.seed + k)}, {}, {}, false});
  const bool streaming = s.samples == 1;
  for (SampleRow &row : rows)
    row.printed = row.text.push(p.text);
  if (streaming) {
    out << rows[0].printed;
    out.flush();
  }
  std::string error;
  for (int64_t n = 0; n < s.tokens; ++n) {
    // Each row holds its sample's window; rows past the samples repeat
    // the first (their logits are not read).
    for (int64_t b = 0; b < B; ++b) {
      const std::vector<uint16_t> &ctx =
          rows[size_t(b < s.samples ? b : 0)].context;
      size_t start = ctx.size() > size_t(T) ? ctx.size() - size_t(T) : 0;
      int64_t len = int64_t(ctx.size() - start);
      for (int64_t t = 0; t < T; ++t)
        tok[b * T + t] = t < len ? int32_t(ctx[start + size_t(t)]) : 0;
      pos[b] = int32_t(len - 1);
    }
    if (!c.device->upload(tokenSlot->offset, tokenSlot->numBytes(), error) ||
        !c.device->upload(posSlot->offset, posSlot->numBytes(), error) ||
        !c.device->upload(stepSlot->offset, stepSlot->numBytes(), error) ||
        (totalSlot &&
         !c.device->upload(totalSlot->offset, totalSlot->numBytes(), error)))
      return fail(err, error);
    c.step.logitsStep(c.device->ref());
    if (!c.device->finish("gptc_logits_step", error) ||
        !c.device->download(logitSlot->offset, logitSlot->numBytes(), error))
      return fail(err, error);
    bool any = false;
    for (int64_t b = 0; b < s.samples; ++b) {
      SampleRow &row = rows[size_t(b)];
      if (row.ended)
        continue;
      int64_t next =
          choose(logits + b * stride, vocab, s.temperature, s.topK, row.rng);
      row.generated.push_back(next);
      if (next == p.bos) {
        row.ended = true; // the model ended the document
        continue;
      }
      any = true;
      row.context.push_back(uint16_t(next));
      std::string piece = row.text.push(p.decode(next));
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
  return std::nullopt;
}

/// Each sample's text (several under a header each), and with --ids the
/// ids drawn.
void printSamples(const SampleSettings &s, std::vector<SampleRow> &rows,
                  std::ostream &out) {
  const bool streaming = s.samples == 1;
  for (int64_t k = 0; k < s.samples; ++k) {
    SampleRow &row = rows[size_t(k)];
    if (!streaming)
      out << "--- sample " << k + 1 << " of " << s.samples << " (seed "
          << s.seed + k << ")\n"
          << row.printed;
    out << row.text.finish() << "\n";
    if (s.options.has("--ids")) {
      out << "ids:";
      for (int64_t id : row.generated)
        out << " " << id;
      out << "\n";
    }
  }
}

} // namespace

int runSampleCommand(const std::vector<std::string> &args, std::ostream &out,
                     std::ostream &err) {
  SampleSettings settings;
  if (Exit e = parseArguments(args, out, err, settings))
    return *e;
  LoadedCheckpoint loaded;
  if (Exit e = openCheckpoint(settings, err, loaded))
    return *e;
  Prompt prompt;
  if (Exit e = readPrompt(settings, loaded, err, prompt))
    return *e;
  std::vector<SampleRow> rows;
  if (Exit e = drawSamples(settings, loaded, prompt, out, err, rows))
    return *e;
  printSamples(settings, rows, out);
  return 0;
}

const char kSampleHelp[] =
    R"(  gptc sample CHECKPOINT --prompt TEXT [--tokens N] [--temperature T]
                                 generate text from a trained checkpoint
)";

} // namespace gptc::commands
