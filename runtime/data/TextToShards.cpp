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
#include <functional>
#include <set>
#include <sstream>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

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

} // namespace

bool checkTextInput(const std::string &path, std::string &error) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    error = path + ": cannot open: " + std::strerror(errno);
    return false;
  }
  if (S_ISDIR(st.st_mode)) {
    error = path + ": is a directory (expected a text file)";
    return false;
  }
  // A pipe is read to its end; a device (/dev/zero, a terminal) never ends
  // or is no text.
  if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode)) {
    error = path + ": is a device, not a text file or a pipe";
    return false;
  }
  return true;
}

namespace {

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
    if (progress)
      progress(bytesRead);
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

  /// The input `path`, read from the file, or from `preread` when the
  /// caller read it already (--train-bpe: a pipe is read once).
  bool file(const std::string &path, bool docPerFile,
            const std::string *preread, std::string &error) {
    std::ifstream file;
    std::istringstream text;
    if (preread) {
      text.str(*preread);
    } else {
      if (!checkTextInput(path, error))
        return false;
      file.open(path, std::ios::binary);
      if (!file) {
        error = path + ": cannot open: " + std::strerror(errno);
        return false;
      }
    }
    std::istream &in = preread ? static_cast<std::istream &>(text) : file;
    const uint64_t before = result.documents;
    std::string doc, line;
    if (docPerFile) {
      char buf[1 << 16];
      while (in.read(buf, sizeof(buf)) || in.gcount() > 0)
        doc.append(buf, size_t(in.gcount()));
      bytesRead += doc.size();
    } else {
      while (std::getline(in, line)) {
        bytesRead += line.size() + 1;
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
    if (!document(doc, error))
      return false;
    if (result.documents == before)
      emptyInputs.push_back(path);
    return true;
  }

  /// Called after each document with the bytes read so far.
  std::function<void(uint64_t)> progress;
  uint64_t bytesRead = 0;
  /// Inputs that held no document (empty, or only blank lines).
  std::vector<std::string> emptyInputs;

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

/// The header of a shard list while gptc data moves new shards in: until
/// the list is written again without it, the directory holds old and new
/// shards mixed (a kill in between leaves it so).
constexpr const char *kSwappingHeader =
    "# gptc data is swapping in new shards: until this line is gone, old "
    "and new are mixed";

/// The shard names gptc data wrote into a directory, from its list
/// (shardListName); empty when there is none. `swapping`: the list says a
/// swap-in did not finish.
bool readShardList(const fs::path &list, std::set<std::string> &names,
                   bool &swapping, std::string &error) {
  swapping = false;
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(list, ec)))
    return true;
  if (!fs::is_regular_file(fs::symlink_status(list, ec))) {
    error = list.string() + ": not a regular file (gptc data's shard list)";
    return false;
  }
  std::ifstream in(list);
  std::string line;
  while (std::getline(in, line)) {
    if (line == kSwappingHeader)
      swapping = true;
    if (!line.empty() && line[0] != '#')
      names.insert(line);
  }
  return true;
}

/// Writes the list of `names` to `list` through a temporary sibling.
bool writeShardList(const fs::path &list, const std::vector<std::string> &names,
                    bool swapping, std::string &error) {
  std::string tmp = list.string() + ".tmp";
  std::FILE *f = std::fopen(tmp.c_str(), "w");
  bool ok = f && std::fputs("# the shards gptc data wrote here; it replaces "
                            "or removes only these\n",
                            f) >= 0;
  if (swapping)
    ok = ok && std::fprintf(f, "%s\n", kSwappingHeader) > 0;
  for (const std::string &n : names)
    ok = ok && std::fprintf(f, "%s\n", n.c_str()) > 0;
  ok = f && std::fflush(f) == 0 && ::fsync(fileno(f)) == 0 && ok;
  if ((f && std::fclose(f) != 0) || !ok ||
      std::rename(tmp.c_str(), list.c_str()) != 0) {
    error = list.string() + ": cannot write: " + std::strerror(errno);
    std::remove(tmp.c_str());
    return false;
  }
  return true;
}

/// Removes the staging directories (PREFIX.partial-XXXXXX) of gptc data
/// runs that were killed: a live run holds a lock on its own.
void removeKilledStaging(const std::string &outDir, const std::string &prefix) {
  std::error_code ec;
  const std::string head = prefix + ".partial-";
  std::vector<fs::path> doomed;
  for (fs::directory_iterator it(outDir, ec), end; !ec && it != end;
       it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name.compare(0, head.size(), head) != 0 ||
        !fs::is_directory(fs::symlink_status(it->path(), ec)))
      continue;
    int fd = ::open(it->path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
      continue;
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0)
      doomed.push_back(it->path());
    ::close(fd);
  }
  for (const fs::path &p : doomed)
    fs::remove_all(p, ec);
}

} // namespace

std::string shardListName(const std::string &prefix) {
  return prefix + ".shards";
}

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

  // Shards that are there already: only those gptc data listed may be
  // replaced or removed; any other is someone's data, and nothing is
  // written.
  const fs::path list = fs::path(outDir) / shardListName(options.prefix);
  std::set<std::string> ours, present;
  bool unfinished = false;
  if (!readShardList(list, ours, unfinished, error))
    return false;
  removeKilledStaging(outDir, options.prefix);
  for (fs::directory_iterator it(outDir, ec), end; !ec && it != end;
       it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (!isShardName(name, options.prefix))
      continue;
    if (!ours.count(name)) {
      error = it->path().string() +
              ": a shard gptc data did not write (not in " + list.string() +
              "); not replacing it (move it, or choose another -o or "
              "--prefix)";
      return false;
    }
    present.insert(name);
  }

  // The new shards go to a staging directory first: a run that fails
  // leaves the old ones as they were.
  std::string stagingName =
      (fs::path(outDir) / (options.prefix + ".partial-XXXXXX")).string();
  std::vector<char> buffer(stagingName.begin(), stagingName.end());
  buffer.push_back('\0');
  if (!::mkdtemp(buffer.data())) {
    error =
        outDir + ": cannot create a staging directory: " + std::strerror(errno);
    return false;
  }
  const fs::path staging = buffer.data();
  // Held until this run ends: a later run removes the staging directory
  // only when no one holds it (removeKilledStaging).
  int stagingLock = ::open(staging.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (stagingLock >= 0)
    ::flock(stagingLock, LOCK_EX | LOCK_NB);
  struct Unlock {
    int fd;
    ~Unlock() {
      if (fd >= 0)
        ::close(fd);
    }
  } unlock{stagingLock};

  std::vector<std::string> staged, trainFiles;
  SplitWriter val(staging.string(), options.prefix, "val", 0,
                  options.shardTokens, staged);
  SplitWriter train(staging.string(), options.prefix, "train", 1,
                    options.shardTokens, trainFiles);
  Splitter splitter(valStride(options.valFraction), train, val, result,
                    options.bpe);

  splitter.progress = options.progress;
  bool ok = true;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!(ok = splitter.file(inputs[i], options.docPerFile,
                             options.texts ? &(*options.texts)[i] : nullptr,
                             error)))
      break;
  if (ok && result.documents == 0) {
    error = (inputs.size() == 1 ? inputs[0] + " is empty"
                                : "the inputs are empty") +
            std::string(" (no text: only blank lines, or no bytes)");
    ok = false;
  } else if (ok && result.trainDocuments == 0) {
    error = "found " + std::to_string(result.documents) +
            " document(s) in the input; need at least 2 (one for val, one "
            "for train)";
    ok = false;
  }
  ok = ok && val.finish(error) && train.finish(error);
  staged.insert(staged.end(), trainFiles.begin(), trainFiles.end());
  if (!ok) {
    fs::remove_all(staging, ec);
    return false;
  }
  result.valTokens = val.tokens;
  result.trainTokens = train.tokens;
  result.tokens = val.tokens + train.tokens;

  // Swap in: the list names old and new shards while they move (a kill
  // leaves only listed shards), the new shards replace the old ones of the
  // same names, the old ones left over go, then the list names the new.
  std::vector<std::string> names;
  for (const std::string &f : staged)
    names.push_back(fs::path(f).filename().string());
  std::vector<std::string> both(present.begin(), present.end());
  both.insert(both.end(), names.begin(), names.end());
  if (!writeShardList(list, both, /*swapping=*/true, error)) {
    fs::remove_all(staging, ec);
    return false;
  }
  std::set<std::string> written;
  for (size_t i = 0; i < staged.size(); ++i) {
    fs::path target = fs::path(outDir) / names[i];
    fs::rename(staged[i], target, ec);
    if (ec) {
      error = target.string() +
              ": cannot move the new shard into place: " + ec.message();
      return false;
    }
    result.files.push_back(target.string());
    written.insert(names[i]);
  }
  fs::remove_all(staging, ec);
  for (const std::string &name : present)
    if (!written.count(name)) {
      fs::path p = fs::path(outDir) / name;
      if (fs::remove(p, ec))
        result.removed.push_back(p.string());
    }
  (void)unfinished; // a swap a kill interrupted is finished by this one
  return writeShardList(list, names, /*swapping=*/false, error);
}

bool checkShardSetComplete(const std::string &shardPath, std::string &error) {
  fs::path shard(shardPath);
  std::string name = shard.filename().string();
  size_t split = name.rfind("_train_");
  if (split == std::string::npos)
    split = name.rfind("_val_");
  if (split == std::string::npos)
    return true;
  fs::path dir = shard.has_parent_path() ? shard.parent_path() : fs::path(".");
  const fs::path list = dir / shardListName(name.substr(0, split));
  std::set<std::string> names;
  bool swapping = false;
  if (!readShardList(list, names, swapping, error))
    return false;
  if (swapping) {
    error = list.string() +
            ": gptc data stopped while it swapped in new "
            "shards, so " +
            dir.string() +
            " holds old and new shards mixed; run that gptc data again";
    return false;
  }
  return true;
}

} // namespace data
} // namespace gptc
