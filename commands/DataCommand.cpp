//===- DataCommand.cpp - `gptc data` --------------------------------------===//

#include "commands/DataCommand.h"

#include "commands/CommandOptions.h"

#include "runtime/TokenizerRecord.h"
#include "runtime/data/BpeTokenizer.h"
#include "runtime/data/BpeTrainer.h"
#include "runtime/data/Shard.h"
#include "runtime/data/TextToShards.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <sstream>

namespace gptc::commands {
using namespace data;

const char *dataCommandUsage() {
  return "usage: gptc data TEXT... -o DIR [options]\n"
         "\n"
         "Makes train/val token shards (.bin, the FineWeb format) from text\n"
         "files for the byte-level tokenizer (token = byte, BOS = 256, vocab\n"
         "257). A document is a block of lines separated by blank lines (or a\n"
         "whole file with --doc-per-file); each starts with BOS. Every k-th\n"
         "document goes to val, k = round(1 / F). Writes\n"
         "DIR/PREFIX_val_000000.bin and DIR/PREFIX_train_000001.bin, ...\n"
         "\n"
         "options:\n"
         "  -o, --output DIR      output directory (created if missing)\n"
         "  --val-fraction F      fraction of documents for val, in (0, 0.5]"
         " (default 0.05)\n"
         "  --shard-tokens N      tokens per shard (default 1e8)\n"
         "  --prefix NAME         shard name prefix (default tiny)\n"
         "  --doc-per-file        one document per input file\n"
         "  --tokenizer FILE      a byte-level BPE vocabulary in tiktoken's\n"
         "                        format (base64 token and rank per line,\n"
         "                        e.g. GPT-2's r50k_base.tiktoken): GPT-2's\n"
         "                        pre-tokenisation and merges, documents\n"
         "                        separated by <|endoftext|> (the id after\n"
         "                        the largest rank: 50256 for GPT-2)\n"
         "  --train-bpe V         learn a byte-level BPE vocabulary of V ids\n"
         "                        (the 256 bytes, V - 257 merges, then\n"
         "                        <|endoftext|> = V - 1) from the TEXT files\n"
         "                        (all of them, val included), write it to\n"
         "                        DIR/PREFIX.tiktoken and tokenise with it\n"
         "                        as --tokenizer does; deterministic (see\n"
         "                        runtime/data/BpeTrainer.h)\n"
         "  -h, --help            show this help\n";
}

/// The bytes of the file at `path` ("" if it cannot be read).
static std::string readAll(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// A progress line on `err` every 2 s of a long run: bytes read (of the
/// total, when every input is a regular file) and the rate.
static std::function<void(uint64_t)>
progressPrinter(const std::vector<std::string> &inputs, std::ostream &err) {
  uint64_t total = 0;
  for (const std::string &input : inputs) {
    struct stat st;
    if (::stat(input.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
      total = 0;
      break;
    }
    total += uint64_t(st.st_size);
  }
  using Clock = std::chrono::steady_clock;
  auto start = Clock::now();
  auto last = std::make_shared<Clock::time_point>(start);
  return [total, start, last, &err](uint64_t read) {
    auto now = Clock::now();
    if (now - *last < std::chrono::seconds(2))
      return;
    *last = now;
    double seconds = std::chrono::duration<double>(now - start).count();
    char line[160];
    if (total > 0)
      std::snprintf(line, sizeof line,
                    "gptc data: %.1f of %.1f MB read (%.0f%%), %.1f MB/s\n",
                    double(read) / 1e6, double(total) / 1e6,
                    100.0 * double(read) / double(total),
                    double(read) / 1e6 / seconds);
    else
      std::snprintf(line, sizeof line, "gptc data: %.1f MB read, %.1f MB/s\n",
                    double(read) / 1e6, double(read) / 1e6 / seconds);
    err << line << std::flush;
  };
}

/// Reads each of `inputs` whole into `texts`, once (a pipe can be read only
/// once): --train-bpe learns from them and then shards them.
static bool readInputs(const std::vector<std::string> &inputs,
                       std::vector<std::string> &texts, std::string &error) {
  for (const std::string &input : inputs) {
    if (!checkTextInput(input, error))
      return false;
    std::ifstream in(input, std::ios::binary);
    if (!in) {
      error = input + ": cannot open: " + std::strerror(errno);
      return false;
    }
    std::string text((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
    if (in.bad()) {
      error = input + ": read error";
      return false;
    }
    texts.push_back(std::move(text));
  }
  return true;
}

/// --train-bpe: learns `ids` - 1 ranks from `texts` (read from `inputs`)
/// and writes them to `path` (its directory created if missing); `created`
/// says whether this run wrote the file (removed again if the run fails).
static bool learnVocabulary(const std::vector<std::string> &inputs,
                            const std::vector<std::string> &texts, int64_t ids,
                            const std::string &path, std::ostream &out,
                            bool &created, std::string &error) {
  created = false;
  int64_t bytes = 0;
  for (size_t i = 0; i < texts.size(); ++i)
    bytes += int64_t(texts[i].size());
  if (bytes == 0) {
    error = (inputs.size() == 1 ? inputs[0] + " is empty"
                                : std::string("the inputs are empty")) +
            " (no text to learn a vocabulary from)";
    return false;
  }
  std::vector<std::string_view> views(texts.begin(), texts.end());
  auto start = std::chrono::steady_clock::now();
  BpeTrainResult learned;
  if (!trainBpe(views, ids - 1, learned, error))
    return false;
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(),
                                      ec);
  // A vocabulary already there is kept unless it is this one: it may be
  // someone's, and the shards beside it were made with it.
  if (std::filesystem::exists(std::filesystem::symlink_status(path, ec))) {
    // Compared only if it is a file: a FIFO would block the read, a device
    // never end it.
    struct stat st;
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
      error = path + ": exists and is not a regular file; not replacing it "
                     "(remove it, or choose another -o or --prefix)";
      return false;
    }
    std::string fresh = path + ".learned-" + std::to_string(::getpid());
    bool same = writeTiktoken(fresh, learned.tokens, error) &&
                readAll(fresh) == readAll(path);
    std::filesystem::remove(fresh, ec);
    if (!error.empty())
      return false;
    if (!same) {
      error = path + ": exists and holds another vocabulary; not replacing "
                     "it (remove it, or choose another -o or --prefix)";
      return false;
    }
  } else if (!writeTiktoken(path, learned.tokens, error)) {
    return false;
  } else {
    created = true;
  }
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  char buf[128];
  std::snprintf(buf, sizeof(buf), " in %.2f s", seconds);
  out << "gptc data: learned " << int64_t(learned.tokens.size()) - 256
      << " merges from " << bytes << " bytes of text" << buf << " -> " << path;
  if (int64_t(learned.tokens.size()) < ids - 1)
    out << " (stopped early: no pair of tokens repeats; " << ids - 1
        << " ranks asked for)";
  out << "\n";
  return true;
}

int runDataCommand(const std::vector<std::string> &args, std::ostream &out,
                   std::ostream &err) {
  const char *me = "gptc data: ";
  static const std::vector<cli::OptionSpec> table = {
      {"--output", "-o", cli::ValueKind::String},
      {"--val-fraction", nullptr, cli::ValueKind::String},
      {"--shard-tokens", nullptr, cli::ValueKind::String},
      {"--prefix", nullptr, cli::ValueKind::String},
      {"--doc-per-file", nullptr, cli::ValueKind::None},
      {"--tokenizer", nullptr, cli::ValueKind::String},
      {"--train-bpe", nullptr, cli::ValueKind::String}};
  cli::ParsedOptions parsed;
  bool help = false;
  if (!cli::parseOptions(args, table, "data", err, parsed, help))
    return 2;
  if (help) {
    out << dataCommandUsage();
    return 0;
  }
  const std::vector<std::string> &inputs = parsed.positionals;
  std::string outDir = parsed.get("--output").value_or("");
  MakeShardsOptions options;
  options.docPerFile = parsed.has("--doc-per-file");
  if (auto v = parsed.get("--val-fraction")) {
    std::optional<double> f = cli::parseNumber(*v);
    if (!f || !(*f > 0 && *f <= 0.5)) {
      err << me << "error: --val-fraction '" << *v
          << "' is not a number in (0, 0.5]\n";
      return 2;
    }
    options.valFraction = *f;
  }
  if (auto v = parsed.get("--shard-tokens")) {
    std::optional<int64_t> n = cli::parseCount(*v);
    if (!n || *n < 1 || uint64_t(*n) > kMaxShardTokens) {
      err << me << "error: --shard-tokens '" << *v
          << "' is not an integer in [1, " << kMaxShardTokens << "]\n";
      return 2;
    }
    options.shardTokens = uint64_t(*n);
  }
  if (auto v = parsed.get("--prefix"))
    options.prefix = *v;
  if (inputs.empty()) {
    err << me << "error: no input text files (see gptc data --help)\n";
    return 2;
  }
  if (outDir.empty()) {
    err << me << "error: no output directory: -o DIR\n";
    return 2;
  }

  MakeShardsResult r;
  std::string error;
  BpeTokenizer bpe;
  std::optional<std::string> tokenizer = parsed.get("--tokenizer");
  std::vector<std::string> texts;
  bool learnedFile = false;
  options.progress = progressPrinter(inputs, err);
  if (auto v = parsed.get("--train-bpe")) {
    if (tokenizer) {
      err << me << "error: --train-bpe and --tokenizer: choose one (a "
          << "vocabulary to learn, or one to use)\n";
      return 2;
    }
    std::optional<int64_t> n = cli::parseCount(*v);
    if (!n || *n < kBpeMinTokens + 2 || *n > kBpeMaxTokens + 1) {
      err << me << "error: --train-bpe '" << *v
          << "': the vocabulary's ids, an integer in [" << kBpeMinTokens + 2
          << ", " << kBpeMaxTokens + 1
          << "] (the 256 bytes, at least one merge, <|endoftext|>)\n";
      return 2;
    }
    tokenizer = outDir + "/" + options.prefix + ".tiktoken";
    if (!readInputs(inputs, texts, error) ||
        !learnVocabulary(inputs, texts, *n, *tokenizer, out, learnedFile,
                         error)) {
      err << me << "error: " << error << "\n";
      return 1;
    }
    options.texts = &texts;
  }
  // A vocabulary this run learned goes again if the run fails: left, it
  // would block the corrected run (another vocabulary at that name).
  struct RemoveIfFailed {
    const std::optional<std::string> &path;
    bool &created;
    bool succeeded = false;
    ~RemoveIfFailed() {
      if (created && !succeeded && path)
        std::remove(path->c_str());
    }
  } cleanup{tokenizer, learnedFile};
  if (auto path = tokenizer) {
    if (!bpe.load(*path, error)) {
      err << me << "error: " << error << "\n";
      return 1;
    }
    options.bpe = &bpe;
    out << "gptc data: tokenizer " << *path << ": " << bpe.vocabSize() - 1
        << " tokens, <|endoftext|> = " << bpe.endOfText() << "\n";
  }
  // The tokenizer travels with the ids (runtime/TokenizerRecord.h).
  runtime::TokenizerRecord record;
  record.kind = runtime::TokenizerRecord::Kind::bytes;
  if (tokenizer && !runtime::bpeRecordOf(*tokenizer, record, error)) {
    err << me << "error: " << error << "\n";
    return 1;
  }
  if (!runtime::mayWriteTokenizerRecord(outDir, options.prefix, error) ||
      !makeShards(inputs, outDir, options, r, error) ||
      !runtime::writeTokenizerRecord(outDir, options.prefix, record, error)) {
    err << me << "error: " << error << "\n";
    return 1;
  }
  cleanup.succeeded = true;
  out << "gptc data: " << r.documents << " documents (" << r.trainDocuments
      << " train, " << r.valDocuments << " val), " << r.tokens << " tokens ("
      << r.trainTokens << " train, " << r.valTokens << " val), "
      << r.files.size() << " files written to " << outDir;
  if (!r.removed.empty())
    out << " (" << r.removed.size() << " stale removed)";
  out << "\n";
  // What a spec needs of these ids: every id in its vocabulary, and the id
  // that starts each document as a document mask's bos_token.
  const int64_t vocab = tokenizer ? bpe.vocabSize() : 257;
  const int64_t bos = tokenizer ? int64_t(bpe.endOfText()) : 256;
  out << "gptc data: a spec for these shards needs model.vocab_size >= "
      << vocab
      << " and, with a document mask, model.attention.bos_token = " << bos
      << " (--set model.vocab_size=" << vocab
      << " --set model.attention.bos_token=" << bos << ")\n";
  // Every-k-th selection aliases with documents that alternate in size
  // (a heading, then its text): say so when val got far too few tokens.
  double valShare = double(r.valTokens) / double(r.tokens);
  double wanted = 1.0 / double(valStride(options.valFraction));
  if (valShare < wanted / 4) {
    char buf[256];
    std::snprintf(buf, sizeof(buf),
                  "warning: val holds %.3g%% of the tokens for %.3g%% of the "
                  "documents; documents alternating in size alias with the "
                  "every-%llu-th selection: try another --val-fraction\n",
                  100 * valShare, 100 * wanted,
                  (unsigned long long)valStride(options.valFraction));
    err << me << buf;
  }
  return 0;
}

const char kDataHelp[] =
    R"(  gptc data TEXT... -o DIR       write byte-level token shards (.bin) of text
                                 files (see gptc data --help)
)";

} // namespace gptc::commands
