//===- TokenizerRecord.cpp - Which tokenizer made a run's ids -------------===//

#include "runtime/TokenizerRecord.h"

#include "runtime/Files.h"
#include "runtime/Sha256.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include <unistd.h>

namespace gptc {
namespace runtime {

std::string TokenizerRecord::describe() const {
  switch (kind) {
  case Kind::bytes:
    return "bytes";
  case Kind::bpe:
    return "the BPE vocabulary " + file + " (sha256 " + sha256.substr(0, 12) +
           "...)";
  case Kind::unknown:
    break;
  }
  return "unknown";
}

std::string tokenizerRecordPath(const std::string &dir,
                                const std::string &prefix) {
  return dir + "/" + prefix + ".tokenizer";
}

/// The first line of a record, gptc data's mark on it.
static std::string recordHeader(const std::string &prefix) {
  return "# the tokenizer of the " + prefix + "_* shards gptc data wrote here";
}

bool mayWriteTokenizerRecord(const std::string &dir, const std::string &prefix,
                             std::string &error) {
  const std::string path = tokenizerRecordPath(dir, prefix);
  if (::access(path.c_str(), F_OK) != 0)
    return true;
  std::string text;
  if (!readRegularFile(path, "tokenizer record", 1 << 16, text, error))
    return false;
  if (text.substr(0, text.find('\n')) == recordHeader(prefix))
    return true;
  error = path + ": a file gptc data did not write; not replacing it (move "
                 "it, or choose another -o or --prefix)";
  return false;
}

bool writeTokenizerRecord(const std::string &dir, const std::string &prefix,
                          const TokenizerRecord &record, std::string &error) {
  const std::string path = tokenizerRecordPath(dir, prefix);
  const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
  std::string line = record.kind == TokenizerRecord::Kind::bpe
                         ? "bpe " + record.sha256 + " " + record.file
                         : std::string("bytes");
  std::FILE *f = std::fopen(tmp.c_str(), "w");
  bool ok = f && std::fprintf(f, "%s\n%s\n", recordHeader(prefix).c_str(),
                              line.c_str()) > 0;
  ok = f && std::fflush(f) == 0 && ::fsync(fileno(f)) == 0 && ok;
  if ((f && std::fclose(f) != 0) || !ok ||
      std::rename(tmp.c_str(), path.c_str()) != 0) {
    error = path + ": cannot write: " + std::strerror(errno);
    std::remove(tmp.c_str());
    return false;
  }
  return true;
}

std::string tokenizerRecordPathOfShard(const std::string &shardPath) {
  size_t slash = shardPath.find_last_of('/');
  std::string dir =
      slash == std::string::npos ? "." : shardPath.substr(0, slash);
  std::string name =
      slash == std::string::npos ? shardPath : shardPath.substr(slash + 1);
  size_t split = name.rfind("_train_");
  if (split == std::string::npos)
    split = name.rfind("_val_");
  if (split == std::string::npos)
    return "";
  return tokenizerRecordPath(dir, name.substr(0, split));
}

TokenizerRecord tokenizerRecordOfShard(const std::string &shardPath) {
  TokenizerRecord record;
  std::string path = tokenizerRecordPathOfShard(shardPath);
  if (path.empty())
    return record;
  // A FIFO or device at PREFIX.tokenizer is not read (it would block or
  // never end): no record.
  std::string text, error;
  if (!readRegularFile(path, "tokenizer record", 1 << 16, text, error))
    return record;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#')
      continue;
    std::istringstream fields(line);
    std::string kind, sha, file;
    fields >> kind;
    if (kind == "bytes") {
      record.kind = TokenizerRecord::Kind::bytes;
    } else if (kind == "bpe" && fields >> sha && sha.size() == 64 &&
               std::getline(fields >> std::ws, file) && !file.empty()) {
      record.kind = TokenizerRecord::Kind::bpe;
      record.sha256 = sha;
      record.file = file;
    }
    break;
  }
  return record;
}

bool bpeRecordOf(const std::string &file, TokenizerRecord &record,
                 std::string &error) {
  std::string text;
  if (!readRegularFile(file, "BPE vocabulary", kMaxVocabularyFileBytes, text,
                       error))
    return false;
  char *absolute = ::realpath(file.c_str(), nullptr);
  record.kind = TokenizerRecord::Kind::bpe;
  record.file = absolute ? absolute : file;
  std::free(absolute);
  record.sha256 = sha256Hex(text.data(), text.size());
  return true;
}

} // namespace runtime
} // namespace gptc
