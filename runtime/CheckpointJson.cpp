//===- CheckpointJson.cpp - checkpoint.json's fields ----------------------===//
//
// Reading checkpoint.json: its hash of itself, the parsing half of
// loadCheckpoint and the bundle gptc sample opens, apart so that the
// checkpoint fuzzer (fuzz/CheckpointFuzzer.cpp) builds it without the rest
// of the runtime.
//
//===----------------------------------------------------------------------===//

#include "runtime/Checkpoint.h"
#include "runtime/Files.h"
#include "runtime/Sha256.h"

#include "llvm/Support/JSON.h"

namespace gptc::runtime {

namespace {
std::string selfHashPattern(const std::string &value) {
  return std::string("\"") + kCheckpointSelfHashField + "\": \"" + value + "\"";
}
} // namespace

std::string checkpointJsonHash(const std::string &text,
                               const std::string &recorded) {
  std::string zeroed = text;
  size_t at = zeroed.find(selfHashPattern(recorded));
  if (at == std::string::npos)
    return "";
  zeroed.replace(at, selfHashPattern(recorded).size(),
                 selfHashPattern(std::string(64, '0')));
  return sha256Hex(zeroed.data(), zeroed.size());
}

std::string sealCheckpointJson(const std::string &text) {
  std::string hash = sha256Hex(text.data(), text.size());
  std::string sealed = text;
  std::string zeros = selfHashPattern(std::string(64, '0'));
  size_t at = sealed.find(zeros);
  if (at != std::string::npos)
    sealed.replace(at, zeros.size(), selfHashPattern(hash));
  return sealed;
}

namespace {

/// checkpoint.json's text parsed, after its nesting is bounded (LLVM's
/// parser recurses per level; the file is three levels deep) and its hash
/// of itself checked: what it says is trusted only as gptc wrote it.
bool parseSealedJson(const std::string &text, const std::string &jsonPath,
                     llvm::json::Value &value, std::string &error) {
  if (!jsonNestingWithin(text, 8)) {
    error = jsonPath + ": not a gptc checkpoint.json (nested too deeply)";
    return false;
  }
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text);
  if (!parsed) {
    error =
        jsonPath + ": not JSON (" + llvm::toString(parsed.takeError()) + ")";
    return false;
  }
  const llvm::json::Object *o = parsed->getAsObject();
  if (std::optional<llvm::StringRef> self =
          o ? o->getString(kCheckpointSelfHashField) : std::nullopt;
      self && checkpointJsonHash(text, self->str()) != *self) {
    error = jsonPath + ": " + kCheckpointSelfHashField +
            ": the file was changed after gptc wrote it (its fields -- the "
            "step, the data position, the bundle -- would resume another run "
            "than the one saved)";
    return false;
  }
  value = std::move(*parsed);
  return true;
}

} // namespace

bool parseCheckpointJson(const std::string &text, const std::string &jsonPath,
                         const Manifest &m, CheckpointState &state,
                         std::string &modelSha, std::string &optimizerSha,
                         std::string &error) {
  llvm::json::Value value = nullptr;
  if (!parseSealedJson(text, jsonPath, value, error))
    return false;
  const llvm::json::Object *o = value.getAsObject();
  auto bad = [&](const std::string &field, const std::string &why) {
    error = jsonPath + ": " + field + ": " + why;
    return false;
  };
  if (!o)
    return bad("(top)", "not a JSON object");
  auto string = [&](const llvm::json::Object *obj, const char *key,
                    std::string &out) {
    std::optional<llvm::StringRef> s = obj->getString(key);
    if (!s)
      return bad(key, "missing or not a string");
    out = s->str();
    return true;
  };
  auto integer = [&](const llvm::json::Object *obj, const char *key,
                     int64_t &out) {
    std::optional<int64_t> v = obj->getInteger(key);
    if (!v || *v < 0)
      return bad(key, "missing or not a non-negative integer");
    out = *v;
    return true;
  };
  std::string format, spec, layout;
  int64_t step = 0, seed = 0, shard = 0, tokens = 0, pos = 0, epoch = 0;
  const llvm::json::Object *data = o->getObject("data");
  const llvm::json::Object *sha = o->getObject("sha256");
  if (!string(o, "format", format))
    return false;
  if (format != kCheckpointFormat)
    return bad("format", "'" + format + "' is not " + kCheckpointFormat);
  if (!data)
    return bad("data", "missing");
  if (!sha)
    return bad("sha256", "missing");
  if (!string(o, "spec_name", spec) || !string(o, "layout_sha256", layout) ||
      !integer(o, "step", step) || !integer(o, "seed", seed) ||
      !integer(data, "shard", shard) ||
      !string(data, "shard_file", state.shardName) ||
      !integer(data, "shard_tokens", tokens) ||
      !integer(data, "position", pos) || !integer(data, "epoch", epoch) ||
      !string(sha, kCheckpointModelFile, modelSha) ||
      !string(sha, kCheckpointOptimizerFile, optimizerSha))
    return false;
  if (layout != m.layoutSha256)
    return bad("layout_sha256",
               "the checkpoint is of spec '" + spec + "' with another arena " +
                   "layout than this bundle's (spec '" + m.specName + "')");
  std::optional<double> first = o->getNumber("first_loss");
  if (o->get("first_loss") && !first)
    return bad("first_loss", "not a number");
  state.step = step;
  state.seed = uint64_t(seed);
  state.data = {size_t(shard), uint64_t(pos), uint64_t(epoch)};
  state.shardTokens = uint64_t(tokens);
  if (std::optional<llvm::StringRef> bundle = o->getString("bundle"))
    state.bundle = bundle->str();
  // The tokenizer: "bytes", {"bpe": FILE, "sha256": HEX}, or absent.
  if (const llvm::json::Value *t = o->get("tokenizer")) {
    const llvm::json::Object *bpe = t->getAsObject();
    if (t->getAsString() == std::optional<llvm::StringRef>("bytes")) {
      state.tokenizer.kind = TokenizerRecord::Kind::bytes;
    } else if (bpe && bpe->getString("bpe") && bpe->getString("sha256")) {
      state.tokenizer.kind = TokenizerRecord::Kind::bpe;
      state.tokenizer.file = bpe->getString("bpe")->str();
      state.tokenizer.sha256 = bpe->getString("sha256")->str();
    } else {
      return bad("tokenizer", "neither \"bytes\" nor {\"bpe\": FILE, "
                              "\"sha256\": HEX}");
    }
  }
  std::optional<int64_t> runSteps = o->getInteger("run_steps");
  if (o->get("run_steps") && (!runSteps || *runSteps < 1))
    return bad("run_steps", "not a positive integer");
  state.runSteps = runSteps.value_or(0);
  if (const llvm::json::Value *id = o->get("run_id")) {
    std::optional<llvm::StringRef> text = id->getAsString();
    if (!text || text->size() != 32 ||
        text->find_first_not_of("0123456789abcdef") != llvm::StringRef::npos)
      return bad("run_id", "not 32 hex digits");
    state.runId = text->str();
  }
  state.haveFirstLoss = first.has_value();
  state.firstLoss = first.value_or(0.0);
  return true;
}

namespace {

/// DIR's checkpoint.json, read (at most 1 MiB) and parsed; `path` is its
/// path, for messages.
bool readCheckpointState(const std::string &dir, std::string &path,
                         llvm::json::Value &value, std::string &error) {
  path = dir + "/" + kCheckpointStateFile;
  std::string text;
  return readRegularFile(path, "checkpoint file", 1 << 20, text, error) &&
         parseSealedJson(text, path, value, error);
}

} // namespace

bool readCheckpointBundle(const std::string &dir, std::string &bundle,
                          std::string &stepLibrarySha256, std::string &error) {
  std::string path;
  llvm::json::Value value = nullptr;
  if (!readCheckpointState(dir, path, value, error))
    return false;
  const llvm::json::Object *o = value.getAsObject();
  std::optional<llvm::StringRef> b = o ? o->getString("bundle") : std::nullopt;
  if (!b) {
    error = path + ": bundle: missing (a checkpoint older than gptc sample)";
    return false;
  }
  std::optional<llvm::StringRef> sha = o->getString("step_library_sha256");
  if (!sha) {
    error = path + ": step_library_sha256: missing";
    return false;
  }
  bundle = b->str();
  stepLibrarySha256 = sha->str();
  return true;
}

std::string checkpointRunId(const std::string &dir) {
  std::string path, error;
  llvm::json::Value value = nullptr;
  if (!readCheckpointState(dir, path, value, error))
    return "";
  const llvm::json::Object *o = value.getAsObject();
  std::optional<llvm::StringRef> id = o ? o->getString("run_id") : std::nullopt;
  return id ? id->str() : "";
}

bool readCheckpointFileSha256(const std::string &dir, const std::string &file,
                              std::string &sha256, std::string &error) {
  std::string path;
  llvm::json::Value value = nullptr;
  if (!readCheckpointState(dir, path, value, error))
    return false;
  const llvm::json::Object *o = value.getAsObject();
  const llvm::json::Object *files = o ? o->getObject("sha256") : nullptr;
  std::optional<llvm::StringRef> sha =
      files ? files->getString(file) : std::nullopt;
  if (!sha) {
    error = path + ": sha256." + file + ": missing";
    return false;
  }
  sha256 = sha->str();
  return true;
}

} // namespace gptc::runtime
