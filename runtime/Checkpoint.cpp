//===- Checkpoint.cpp - Saving and resuming a training run ----------------===//

#include "runtime/Checkpoint.h"

#include "runtime/Files.h"
#include "runtime/ParamNames.h"
#include "runtime/SafeTensors.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace gptc::runtime {

namespace {

constexpr const char *kFormat = kCheckpointFormat;
constexpr const char *kModelFile = kCheckpointModelFile;
constexpr const char *kOptimizerFile = kCheckpointOptimizerFile;
constexpr const char *kStateFile = kCheckpointStateFile;

bool exists(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

/// The absolute path of the bundle `m` was read from (its manifest's
/// directory): where `gptc sample` finds the step.
std::string bundleDirectory(const Manifest &m) {
  std::string dir = m.path.substr(0, m.path.find_last_of('/') + 1);
  if (dir.empty())
    dir = ".";
  char *real = ::realpath(dir.c_str(), nullptr);
  std::string out = real ? real : dir;
  std::free(real);
  return out;
}

} // namespace

int64_t checkpointStepOfName(const std::string &name) {
  if (name.compare(0, 5, "step_") != 0 || name.size() == 5 ||
      name.size() > 5 + 18)
    return -1;
  int64_t v = 0;
  for (size_t i = 5; i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9')
      return -1;
    v = v * 10 + (name[i] - '0');
  }
  return v;
}

std::vector<std::pair<int64_t, std::string>>
listCheckpoints(const std::string &dir) {
  std::vector<std::pair<int64_t, std::string>> found;
  if (DIR *d = ::opendir(dir.c_str())) {
    while (dirent *e = ::readdir(d)) {
      int64_t s = checkpointStepOfName(e->d_name);
      std::string path = dir + "/" + e->d_name;
      if (s >= 0 && exists(path + "/" + kStateFile))
        found.push_back({s, path});
    }
    ::closedir(d);
  }
  std::sort(found.begin(), found.end());
  return found;
}

namespace {

/// Holds an exclusive flock on DIR/.lock while alive (best effort: a file
/// system without locks saves unlocked).
class DirectoryLock {
public:
  explicit DirectoryLock(const std::string &dir) {
    fd = ::open((dir + "/.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd >= 0)
      ::flock(fd, LOCK_EX);
  }
  ~DirectoryLock() {
    if (fd >= 0)
      ::close(fd);
  }

private:
  int fd = -1;
};

/// Removes the staging directories (step_S.partial-*) of saves that were
/// killed (gptc's marker in them, their writer gone).
void removeKilledSaves(const std::string &dir) {
  std::vector<std::string> partial;
  if (DIR *d = ::opendir(dir.c_str())) {
    while (dirent *e = ::readdir(d)) {
      std::string name = e->d_name;
      if (name.compare(0, 5, "step_") == 0 &&
          name.find(".partial-") != std::string::npos &&
          isAbandonedStaging(dir + "/" + name))
        partial.push_back(dir + "/" + name);
    }
    ::closedir(d);
  }
  for (const std::string &p : partial)
    removeTree(p);
}

/// The largest tensor file `file` (model or optimizer) of a checkpoint of
/// `m` can be: its slots' bytes, a safetensors header and its length.
int64_t maxTensorFileBytes(const Manifest &m, const std::string &file) {
  const std::string prefix = file == kModelFile ? "param." : "state.";
  int64_t bytes = 0;
  for (const Slot &s : m.slots)
    if (s.name.compare(0, prefix.size(), prefix) == 0)
      bytes += s.numBytes();
  return SafeTensorsFile::maxFileBytes(bytes);
}

/// The `prefix` slots of `arena` as tensors named without `strip`.
std::vector<TensorToWrite> slotTensors(const Manifest &m, const Arena &arena,
                                       const std::string &prefix,
                                       size_t strip) {
  std::vector<TensorToWrite> out;
  for (const Slot &s : m.slots)
    if (s.name.compare(0, prefix.size(), prefix) == 0)
      out.push_back(
          {s.name.substr(strip), s.dtype, s.shape, arena.data() + s.offset});
  return out;
}

bool writeTensorFile(const std::string &path,
                     const std::vector<TensorToWrite> &tensors,
                     const std::map<std::string, std::string> &metadata,
                     std::string &error) {
  std::FILE *f = std::fopen(path.c_str(), "wb");
  if (!f) {
    error = path + ": cannot create: " + std::strerror(errno);
    return false;
  }
  bool ok = writeSafeTensors(f, path, tensors, metadata, error);
  if (std::fclose(f) != 0 && ok) {
    error = path + ": cannot write: " + std::strerror(errno);
    ok = false;
  }
  return ok;
}

/// Copies the tensors of `file` into the slots starting with `prefix`
/// (tensors named without it when `strip`): the same set, dtypes and
/// shapes, else an error naming the tensor.
bool restoreSlots(const Manifest &m, Arena &arena, const SafeTensorsFile &file,
                  const std::string &prefix, bool strip, std::string &error) {
  size_t expected = 0;
  for (const Slot &s : m.slots) {
    if (s.name.compare(0, prefix.size(), prefix) != 0)
      continue;
    ++expected;
    std::string name = s.name.substr(strip ? prefix.size() : 0);
    const SafeTensorsFile::Tensor *t = file.find(name);
    if (!t) {
      error = file.path() + ": no tensor '" + name + "', which this bundle " +
              "has (the checkpoint is of another model)";
      return false;
    }
    if (t->dtype != s.dtype || t->shape != s.shape) {
      error = file.path() + ": tensor '" + name + "' is " +
              safeTensorsDtype(t->dtype) + " " + shapeText(t->shape) +
              ", the bundle's is " + safeTensorsDtype(s.dtype) + " " +
              shapeText(s.shape);
      return false;
    }
    std::memcpy(arena.data() + s.offset, file.data(*t), size_t(t->bytes));
  }
  if (file.tensors().size() != expected) {
    for (const SafeTensorsFile::Tensor &t : file.tensors())
      if (!m.findSlot(strip ? prefix + t.name : t.name)) {
        error = file.path() + ": tensor '" + t.name +
                "' is not in this bundle (the checkpoint is of another model)";
        return false;
      }
  }
  return true;
}

} // namespace

bool saveCheckpoint(const Manifest &m, const Arena &arena,
                    const CheckpointState &state, const std::string &dir,
                    int64_t keep, bool keepUnrecorded, std::string &written,
                    std::string &laterNote, std::string &error) {
  laterNote.clear();
  if (!makeDirectories(dir, error))
    return false;
  // One save into DIR at a time: a second run saving there waits (it would
  // otherwise remove this one's staging directory as a killed save's).
  DirectoryLock lock(dir);
  const std::string target = dir + "/step_" + std::to_string(state.step);
  removeKilledSaves(dir);
  std::string staging;
  if (!makeStagingDirectory(target, staging, error))
    return false;
  std::map<std::string, std::string> meta = {
      {"format", "pt"},
      {"gptc.spec", m.specName},
      {"gptc.step", std::to_string(state.step)}};
  std::string modelSha, optimizerSha;
  int64_t ignored = 0;
  bool ok =
      writeTensorFile(staging + "/" + kModelFile,
                      slotTensors(m, arena, "param.", 6), meta, error) &&
      writeTensorFile(staging + "/" + kOptimizerFile,
                      slotTensors(m, arena, "state.", 0), meta, error) &&
      sha256File(staging + "/" + kModelFile, modelSha, ignored, error) &&
      sha256File(staging + "/" + kOptimizerFile, optimizerSha, ignored, error);
  if (ok) {
    std::string text;
    llvm::raw_string_ostream os(text);
    llvm::json::OStream j(os, 2);
    j.object([&] {
      j.attribute("format", kFormat);
      j.attribute("spec_name", m.specName);
      j.attribute("bundle", bundleDirectory(m));
      j.attribute("step", state.step);
      if (!state.runId.empty())
        j.attribute("run_id", state.runId);
      if (state.runSteps > 0)
        j.attribute("run_steps", state.runSteps);
      j.attribute("seed", int64_t(state.seed));
      j.attribute("layout_sha256", m.layoutSha256);
      j.attribute("step_library_sha256", m.stepLibrary.sha256);
      j.attributeObject("data", [&] {
        j.attribute("shard", int64_t(state.data.shard));
        j.attribute("shard_file", state.shardName);
        j.attribute("shard_tokens", int64_t(state.shardTokens));
        j.attribute("position", int64_t(state.data.pos));
        j.attribute("epoch", int64_t(state.data.epoch));
      });
      if (state.haveFirstLoss)
        j.attribute("first_loss", state.firstLoss);
      if (state.tokenizer.kind == TokenizerRecord::Kind::bytes)
        j.attribute("tokenizer", "bytes");
      else if (state.tokenizer.kind == TokenizerRecord::Kind::bpe)
        j.attributeObject("tokenizer", [&] {
          j.attribute("bpe", state.tokenizer.file);
          j.attribute("sha256", state.tokenizer.sha256);
        });
      j.attributeObject("sha256", [&] {
        j.attribute(kModelFile, modelSha);
        j.attribute(kOptimizerFile, optimizerSha);
      });
      j.attribute(kCheckpointSelfHashField, std::string(64, '0'));
    });
    os << "\n";
    os.flush();
    text = sealCheckpointJson(text);
    std::string path = staging + "/" + kStateFile;
    std::FILE *f = std::fopen(path.c_str(), "wb");
    ok = f && std::fwrite(text.data(), 1, text.size(), f) == text.size();
    if ((f && std::fclose(f) != 0) || !ok) {
      error = path + ": cannot write: " + std::strerror(errno);
      ok = false;
    }
  }
  ok = ok && commitDirectory(
                 staging, target,
                 [](const std::string &old) {
                   return exists(old + "/" + kStateFile);
                 },
                 error);
  if (!ok) {
    removeTree(staging);
    return false;
  }
  written = target;
  // --keep: the newest `keep` of this run's up to this step stay. Later
  // steps are another run's, or this run's before it resumed from an
  // earlier checkpoint: left, and named. Another run's are never removed.
  std::vector<std::pair<int64_t, std::string>> older;
  for (const auto &c : listCheckpoints(dir)) {
    if (c.first > state.step)
      laterNote = c.second;
    if (c.first >= state.step || keep <= 0)
      continue;
    std::string id = checkpointRunId(c.second);
    if (id == state.runId || (id.empty() && keepUnrecorded))
      older.push_back(c);
  }
  if (keep > 0)
    for (size_t i = 0; i + size_t(keep) - 1 < older.size(); ++i) {
      // Renamed first: a kill while deleting leaves a staging directory,
      // which the next save removes, not a step_S without its files.
      std::string doomed = older[i].second + ".partial-removed";
      if (::rename(older[i].second.c_str(), doomed.c_str()) == 0)
        removeTree(doomed);
    }
  return true;
}

bool findCheckpoint(const std::string &path, std::string &found,
                    std::string &error) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    error = path + ": no such checkpoint directory";
    return false;
  }
  if (exists(path + "/" + kStateFile)) {
    found = path;
    return true;
  }
  auto all = listCheckpoints(path);
  if (all.empty()) {
    error = path + ": no checkpoint here (neither " + kStateFile +
            " nor a step_N directory holding one)";
    return false;
  }
  found = all.back().second;
  return true;
}

bool checkBundleOfCheckpoint(const std::string &dir, const std::string &bundle,
                             std::string &error) {
  std::string named, expected;
  if (!readCheckpointBundle(dir, named, expected, error))
    return false;
  Manifest m;
  if (!readManifest(bundle + "/manifest.json", m, error))
    return false;
  if (m.stepLibrary.sha256 != expected) {
    error = bundle + ": not the bundle " + dir +
            " was saved with (its step library's SHA-256 is " +
            m.stepLibrary.sha256.substr(0, 12) + "..., the checkpoint's " +
            expected.substr(0, 12) +
            "...); not loading its code (give the right one with --bundle "
            "DIR)";
    return false;
  }
  return true;
}

bool loadCheckpoint(const Manifest &m, Arena &arena, const std::string &dir,
                    CheckpointState &state, std::string &error) {
  const std::string jsonPath = dir + "/" + kStateFile;
  std::string text, modelSha, optimizerSha;
  CheckpointState read;
  if (!readRegularFile(jsonPath, "checkpoint file", 1 << 20, text, error) ||
      !parseCheckpointJson(text, jsonPath, m, read, modelSha, optimizerSha,
                           error))
    return false;
  for (const auto &[file, want] :
       {std::pair{kModelFile, modelSha}, {kOptimizerFile, optimizerSha}}) {
    std::string got;
    int64_t bytes = 0;
    if (!checkRegularFile(dir + "/" + file, "safetensors file", error) ||
        !checkFileSizeAtMost(dir + "/" + file, maxTensorFileBytes(m, file),
                             "a checkpoint of this bundle holds", error) ||
        !sha256File(dir + "/" + file, got, bytes, error))
      return false;
    if (got != want) {
      error = jsonPath + ": sha256." + file + ": the file's SHA-256 is " +
              got.substr(0, 12) +
              "..., not the one recorded (it was changed or damaged)";
      return false;
    }
  }
  SafeTensorsFile model, optimizer;
  if (!model.open(dir + "/" + kModelFile, error,
                  maxTensorFileBytes(m, kModelFile)) ||
      !optimizer.open(dir + "/" + kOptimizerFile, error,
                      maxTensorFileBytes(m, kOptimizerFile)) ||
      !restoreSlots(m, arena, model, "param.", /*strip=*/true, error) ||
      !restoreSlots(m, arena, optimizer, "state.", /*strip=*/false, error))
    return false;
  // Only a checkpoint read whole changes the caller's state (a resume
  // sets its bundle before).
  std::string bundle = state.bundle;
  state = read;
  if (state.bundle.empty())
    state.bundle = bundle;
  return true;
}

bool loadInitialWeights(const Manifest &m, Arena &arena,
                        const std::string &path, std::string &error) {
  // At most every parameter in f64 (the widest dtype taken).
  int64_t elements = 0;
  for (const Slot &s : m.slots)
    if (s.name.compare(0, 6, "param.") == 0)
      elements += s.numElements();
  SafeTensorsFile file;
  if (!file.open(path, error, SafeTensorsFile::maxFileBytes(elements * 8)))
    return false;
  // The file's tensors by gptc name (modded-nanogpt's names translated).
  std::map<std::string, const SafeTensorsFile::Tensor *> byName;
  for (const SafeTensorsFile::Tensor &t : file.tensors()) {
    std::string name = gptcNameOfModded(t.name);
    if (!m.findSlot("param." + name)) {
      error = path + ": tensor '" + t.name + "' is not a parameter of this " +
              "bundle (names are the manifest's or modded-nanogpt's, " +
              "docs/checkpoints.md)";
      return false;
    }
    if (!byName.emplace(name, &t).second) {
      error = path + ": two tensors are parameter '" + name + "'";
      return false;
    }
  }
  for (const ParamEntry &p : m.params) {
    const Slot *s = m.findSlot("param." + p.name);
    auto found = byName.find(p.name);
    const SafeTensorsFile::Tensor *t =
        found == byName.end() ? nullptr : found->second;
    if (!s)
      continue; // readManifest guarantees it
    if (!t) {
      error = path + ": no tensor '" + p.name + "' (--init needs every " +
              "parameter of the bundle, named as in its manifest)";
      return false;
    }
    bool isFloat = t->dtype == SlotType::F32 || t->dtype == SlotType::F64 ||
                   t->dtype == SlotType::BF16;
    if (!isFloat || t->shape != s->shape) {
      error = path + ": tensor '" + t->name + "' is " +
              safeTensorsDtype(t->dtype) + " " + shapeText(t->shape) +
              ", the parameter is " + safeTensorsDtype(s->dtype) + " " +
              shapeText(s->shape);
      return false;
    }
    const uint8_t *src = file.data(*t);
    if (t->dtype == s->dtype) {
      std::memcpy(arena.data() + s->offset, src, size_t(t->bytes));
      continue;
    }
    for (int64_t i = 0; i < t->numElements(); ++i) {
      double v = 0.0;
      if (t->dtype == SlotType::F32) {
        float f;
        std::memcpy(&f, src + 4 * i, 4);
        v = f;
      } else if (t->dtype == SlotType::F64) {
        std::memcpy(&v, src + 8 * i, 8);
      } else {
        uint16_t h;
        std::memcpy(&h, src + 2 * i, 2);
        v = bf16ToFloat(h);
      }
      arena.store(*s, i, v);
    }
  }
  return true;
}

} // namespace gptc::runtime
