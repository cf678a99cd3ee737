//===- TextToShards.cpp - Text files -> byte-token shards -----------------===//

#include "runtime/data/TextToShards.h"

#include "runtime/data/BpeTokenizer.h"
#include "runtime/data/Shard.h"
#include "runtime/data/Tokenizer.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

#include <sys/stat.h>

namespace fs = std::filesystem;

namespace gptc {
namespace data {

uint64_t valStride(double valFraction) {
  double k = std::round(1.0 / valFraction);
  return k < 2 ? 2 : uint64_t(k);
}

std::string shardFileName(const std::string &prefix, const std::string &split,
                          uint64_t index) {
  char num[32];
  std::snprintf(num, sizeof(num), "%06llu", (unsigned long long)index);
  return prefix + "_" + split + "_" + num + ".bin";
}

namespace {

/// Buffers one split's token stream and writes it out shard by shard.
class SplitWriter {
public:
  SplitWriter(const std::string &dir, const std::string &prefix,
              const char *split, uint64_t firstIndex, uint64_t shardTokens,
              std::vector<std::string> &files)
      : dir(dir), prefix(prefix), split(split), index(firstIndex),
        shardTokens(shardTokens), files(files) {}

  bool push(uint16_t token, std::string &error) {
    buffer.push_back(token);
    ++tokens;
    return buffer.size() < shardTokens || flush(error);
  }

  bool finish(std::string &error) { return buffer.empty() || flush(error); }

  uint64_t tokens = 0;

private:
  bool flush(std::string &error) {
    std::string path =
        (fs::path(dir) / shardFileName(prefix, split, index++)).string();
    if (!writeShard(path, buffer, error))
      return false;
    files.push_back(path);
    buffer.clear();
    return true;
  }

  std::string dir, prefix, split;
  uint64_t index;
  uint64_t shardTokens;
  std::vector<std::string> &files;
  std::vector<uint16_t> buffer;
};

bool isBlank(const std::string &line) {
  for (char c : line)
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f' &&
        c != '\v')
      return false;
  return true;
}

/// Splits inputs into documents and routes them to the two writers.
class Splitter {
public:
  Splitter(uint64_t stride, SplitWriter &train, SplitWriter &val,
           MakeShardsResult &result, const BpeTokenizer *bpe)
      : stride(stride), train(train), val(val), result(result), bpe(bpe) {}

  bool document(const std::string &text, std::string &error) {
    if (isBlank(text))
      return true;
    bool toVal = result.documents % stride == 0;
    ++result.documents;
    ++(toVal ? result.valDocuments : result.trainDocuments);
    SplitWriter &w = toVal ? val : train;
    if (bpe) {
      ids.clear();
      ids.push_back(bpe->endOfText());
      bpe->encode(text, ids);
      for (uint16_t id : ids)
        if (!w.push(id, error))
          return false;
      return true;
    }
    if (!w.push(uint16_t(ByteTokenizer::kBOS), error))
      return false;
    for (char c : text)
      if (!w.push(uint16_t(static_cast<unsigned char>(c)), error))
        return false;
    return true;
  }

  bool file(const std::string &path, bool docPerFile, std::string &error) {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) {
      error = path + ": cannot open: " + std::strerror(errno);
      return false;
    }
    if (S_ISDIR(st.st_mode)) {
      error = path + ": is a directory (expected a text file)";
      return false;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      error = path + ": cannot open: " + std::strerror(errno);
      return false;
    }
    std::string doc, line;
    if (docPerFile) {
      char buf[1 << 16];
      while (in.read(buf, sizeof(buf)) || in.gcount() > 0)
        doc.append(buf, size_t(in.gcount()));
    } else {
      while (std::getline(in, line)) {
        if (isBlank(line)) {
          if (!document(doc, error))
            return false;
          doc.clear();
          continue;
        }
        doc += line;
        if (!in.eof()) // the line ended with '\n'
          doc.push_back('\n');
      }
    }
    if (in.bad()) {
      error = path + ": read error";
      return false;
    }
    return document(doc, error);
  }

private:
  uint64_t stride;
  SplitWriter &train, &val;
  MakeShardsResult &result;
  const BpeTokenizer *bpe;
  std::vector<uint16_t> ids;
};

bool isShardName(const std::string &name, const std::string &prefix) {
  for (const char *split : {"_train_", "_val_"}) {
    std::string head = prefix + split;
    if (name.size() != head.size() + 6 + 4 ||
        name.compare(0, head.size(), head))
      continue;
    bool digits = true;
    for (size_t i = head.size(); i < head.size() + 6; ++i)
      digits = digits && name[i] >= '0' && name[i] <= '9';
    if (digits && name.compare(name.size() - 4, 4, ".bin") == 0)
      return true;
  }
  return false;
}

void removeFiles(const std::vector<std::string> &files) {
  for (const std::string &f : files)
    std::remove(f.c_str());
}

} // namespace

bool makeShards(const std::vector<std::string> &inputs,
                const std::string &outDir, const MakeShardsOptions &options,
                MakeShardsResult &result, std::string &error) {
  result = MakeShardsResult();
  if (inputs.empty()) {
    error = "no input files";
    return false;
  }
  if (!(options.valFraction > 0 && options.valFraction <= 0.5)) {
    error = "val fraction " + std::to_string(options.valFraction) +
            " is out of range (0, 0.5]";
    return false;
  }
  if (options.shardTokens < 1 || options.shardTokens > kMaxShardTokens) {
    error = "shard size " + std::to_string(options.shardTokens) +
            " tokens is out of range [1, " + std::to_string(kMaxShardTokens) +
            "]";
    return false;
  }
  if (options.prefix.empty() || options.prefix.find('/') != std::string::npos) {
    error =
        "bad prefix '" + options.prefix + "' (must be non-empty, without '/')";
    return false;
  }
  std::error_code ec;
  fs::create_directories(outDir, ec);
  if (ec || !fs::is_directory(outDir, ec)) {
    error = outDir + ": cannot create the output directory" +
            (ec ? ": " + ec.message() : std::string());
    return false;
  }

  SplitWriter val(outDir, options.prefix, "val", 0, options.shardTokens,
                  result.files);
  std::vector<std::string> trainFiles;
  SplitWriter train(outDir, options.prefix, "train", 1, options.shardTokens,
                    trainFiles);
  Splitter splitter(valStride(options.valFraction), train, val, result,
                    options.bpe);

  bool ok = true;
  for (const std::string &input : inputs)
    if (!(ok = splitter.file(input, options.docPerFile, error)))
      break;
  if (ok && result.trainDocuments == 0) {
    error = "found " + std::to_string(result.documents) +
            " document(s) in the input; need at least 2 (one for val, one "
            "for train)";
    ok = false;
  }
  ok = ok && val.finish(error) && train.finish(error);
  result.files.insert(result.files.end(), trainFiles.begin(), trainFiles.end());
  if (!ok) {
    removeFiles(result.files);
    result.files.clear();
    return false;
  }
  result.valTokens = val.tokens;
  result.trainTokens = train.tokens;
  result.tokens = val.tokens + train.tokens;

  // Remove shards of an earlier run that this one did not overwrite.
  std::set<std::string> written;
  for (const std::string &f : result.files)
    written.insert(fs::path(f).filename().string());
  std::vector<std::string> stale;
  for (fs::directory_iterator it(outDir, ec), end; !ec && it != end;
       it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (isShardName(name, options.prefix) && !written.count(name))
      stale.push_back(it->path().string());
  }
  std::sort(stale.begin(), stale.end());
  for (const std::string &p : stale)
    if (std::remove(p.c_str()) == 0)
      result.removed.push_back(p);
  return true;
}

} // namespace data
} // namespace gptc
