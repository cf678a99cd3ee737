//===- DataCommand.cpp - `gptc data` --------------------------------------===//

#include "runtime/data/DataCommand.h"
#include "runtime/data/OptionValue.h"

#include "runtime/data/Shard.h"
#include "runtime/data/TextToShards.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace gptc {
namespace data {

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
         "  -h, --help            show this help\n";
}

namespace {

bool parseDouble(const std::string &s, double &v) {
  if (s.empty())
    return false;
  char *end = nullptr;
  errno = 0;
  v = std::strtod(s.c_str(), &end);
  return errno == 0 && *end == '\0' && std::isfinite(v);
}

/// A positive integer; accepts scientific notation such as 1e8.
bool parseCount(const std::string &s, uint64_t &v) {
  double d;
  if (!parseDouble(s, d) || d < 1 || d > 9e15 || d != std::floor(d))
    return false;
  v = uint64_t(d);
  return true;
}

} // namespace

int runDataCommand(const std::vector<std::string> &args, std::ostream &out,
                   std::ostream &err) {
  const char *me = "gptc data: ";
  std::vector<std::string> inputs;
  std::string outDir;
  MakeShardsOptions options;
  bool onlyInputs = false;

  for (size_t i = 0; i < args.size(); ++i) {
    std::string arg = args[i];
    if (onlyInputs || arg == "-" || arg.empty() || arg[0] != '-') {
      inputs.push_back(arg);
      continue;
    }
    if (arg == "--") {
      onlyInputs = true;
      continue;
    }
    if (arg == "-h" || arg == "--help") {
      out << dataCommandUsage();
      return 0;
    }
    if (arg == "--doc-per-file") {
      options.docPerFile = true;
      continue;
    }
    // Options with a value: "--opt VALUE" or "--opt=VALUE".
    std::string value;
    if (!takeOptionValue(
            args, i,
            {"-o", "--output", "--val-fraction", "--shard-tokens", "--prefix"},
            me, "data", err, arg, value))
      return 2;
    if (arg == "-o" || arg == "--output") {
      outDir = value;
    } else if (arg == "--val-fraction") {
      if (!parseDouble(value, options.valFraction) ||
          !(options.valFraction > 0 && options.valFraction <= 0.5)) {
        err << me << "error: --val-fraction '" << value
            << "' is not a number in (0, 0.5]\n";
        return 2;
      }
    } else if (arg == "--shard-tokens") {
      if (!parseCount(value, options.shardTokens) ||
          options.shardTokens > kMaxShardTokens) {
        err << me << "error: --shard-tokens '" << value
            << "' is not an integer in [1, " << kMaxShardTokens << "]\n";
        return 2;
      }
    } else {
      options.prefix = value;
    }
  }
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
  if (!makeShards(inputs, outDir, options, r, error)) {
    err << me << "error: " << error << "\n";
    return 1;
  }
  out << "gptc data: " << r.documents << " documents (" << r.trainDocuments
      << " train, " << r.valDocuments << " val), " << r.tokens << " tokens ("
      << r.trainTokens << " train, " << r.valTokens << " val), "
      << r.files.size() << " files written to " << outDir;
  if (!r.removed.empty())
    out << " (" << r.removed.size() << " stale removed)";
  out << "\n";
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

} // namespace data
} // namespace gptc
