//===- Checkpoint.h - Saving and resuming a training run --------*- C++ -*-===//
//
// `gptc train --save-every N` (and the end of a run, and Ctrl-C) writes
// DIR/step_S/ after S optimizer steps:
//
//   model.safetensors      every parameter (param.NAME slots), named NAME as
//                          in the manifest, in its own dtype
//   optimizer.safetensors  every optimizer state slot (state.NAME.KIND:
//                          Adam's m and v, Muon's momentum), named as the
//                          slot
//   checkpoint.json        the step S, the bundle's layout_sha256 and step
//                          library SHA-256, the seed, where the training
//                          data continues (shard, position, epoch), the
//                          divergence guard's first loss, and the SHA-256
//                          of both tensor files
//
// The directory is built beside its target and renamed into place
// (runtime/Files.h), so a kill at any moment leaves the previous
// checkpoints as they were and never a step_S that is half written;
// `--keep K` then removes all but the newest K.
//
// `--resume PATH` (a step_S directory, or a DIR of them: the newest)
// checks everything against the bundle -- the layout hash, every tensor's
// name, dtype and shape, the files' hashes, the data shards -- and
// restores the parameters, the optimizer state and the data position, so
// N steps + resume + M steps give the bits of N+M steps. The step library
// itself may differ (--no-fuse of the same spec has the same layout).
// `--init FILE.safetensors` starts from given weights only (docs/
// checkpoints.md).
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_RUNTIME_CHECKPOINT_H
#define GPTC_RUNTIME_CHECKPOINT_H

#include "runtime/Arena.h"
#include "runtime/Manifest.h"
#include "runtime/TokenizerRecord.h"
#include "runtime/data/DataLoader.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace gptc::runtime {

/// What a checkpoint holds besides the tensors.
/// The files of a checkpoint directory step_S/ and its format.
constexpr const char *kCheckpointFormat = "gptc-checkpoint/1";
constexpr const char *kCheckpointModelFile = "model.safetensors";
constexpr const char *kCheckpointOptimizerFile = "optimizer.safetensors";
constexpr const char *kCheckpointStateFile = "checkpoint.json";

struct CheckpointState {
  int64_t step = 0; ///< optimizer steps done
  /// The run that wrote it (runtime/RunClaim.h); "" in checkpoints written
  /// before they recorded it.
  std::string runId;
  /// The run's length, which its schedules span (0: not recorded, the
  /// bundle's training.steps).
  int64_t runSteps = 0;
  uint64_t seed = 0;
  /// Where the next training batch starts, and the shard it is in (its
  /// file name and token count, checked on resume).
  data::DataLoader::Position data;
  std::string shardName;
  uint64_t shardTokens = 0;
  /// The bundle the run trained (absolute; `gptc sample` opens it).
  std::string bundle;
  /// The tokenizer of the training data (runtime/TokenizerRecord.h).
  TokenizerRecord tokenizer;
  /// The divergence guard's reference (runtime/Divergence.h).
  bool haveFirstLoss = false;
  double firstLoss = 0.0;
};

/// The step of a "step_S" name, or -1.
int64_t checkpointStepOfName(const std::string &name);

/// The complete checkpoints of `dir` (step_S directories with a
/// checkpoint.json), by step.
std::vector<std::pair<int64_t, std::string>>
listCheckpoints(const std::string &dir);

/// Writes DIR/step_S (S = state.step) from `arena`'s param.* and state.*
/// slots; then, when keep > 0, removes all but the newest `keep` step_*
/// directories of DIR up to S that this run wrote (state.runId; with
/// `keepUnrecorded`, also those that record no run). Sets `written` to the
/// directory, and `later` to a checkpoint of DIR past S (another run's) if
/// there is one.
bool saveCheckpoint(const Manifest &manifest, const Arena &arena,
                    const CheckpointState &state, const std::string &dir,
                    int64_t keep, bool keepUnrecorded, std::string &written,
                    std::string &later, std::string &error);

/// The checkpoint `path` names: itself when it holds checkpoint.json,
/// else the newest complete step_S inside it. False with `error`.
bool findCheckpoint(const std::string &path, std::string &found,
                    std::string &error);

/// The bundle the checkpoint `dir` was saved from (checkpoint.json's
/// `bundle`) and the SHA-256 of that bundle's step library
/// (`step_library_sha256`).
bool readCheckpointBundle(const std::string &dir, std::string &bundle,
                          std::string &stepLibrarySha256, std::string &error);

/// The run that wrote the checkpoint `dir` (checkpoint.json's `run_id`,
/// its own hash checked; runtime/RunClaim.h): "" when it records none or
/// cannot be read as gptc wrote it.
std::string checkpointRunId(const std::string &dir);

/// The SHA-256 that the checkpoint `dir`'s checkpoint.json (its own hash
/// checked) records for its tensor file `file` (kCheckpointModelFile or
/// kCheckpointOptimizerFile).
bool readCheckpointFileSha256(const std::string &dir, const std::string &file,
                              std::string &sha256, std::string &error);

/// A bundle is code: before `bundle`'s step library is loaded for the
/// checkpoint `dir`, its manifest must name the library the checkpoint was
/// saved with (openBundle then checks the file against the manifest).
/// False with one `error` line naming both otherwise.
bool checkBundleOfCheckpoint(const std::string &dir, const std::string &bundle,
                             std::string &error);

/// checkpoint.json's hash of itself: the SHA-256 of its text with this
/// field's value written as 64 zeros. An edit (a resume step, a data
/// position, a bundle) is refused; checkpoints written before it have none.
constexpr const char *kCheckpointSelfHashField = "checkpoint_sha256";
/// `text` (checkpoint.json with its self hash as 64 zeros) with the hash
/// filled in; and the hash `text` should carry (its own value zeroed).
std::string sealCheckpointJson(const std::string &text);
std::string checkpointJsonHash(const std::string &text,
                               const std::string &recorded);

/// The fields of checkpoint.json's text (called `jsonPath` in errors) into
/// `state` and the recorded SHA-256 of the two tensor files, checked
/// against `manifest`'s layout: loadCheckpoint's parsing (and the
/// fuzzer's entry).
bool parseCheckpointJson(const std::string &text, const std::string &jsonPath,
                         const Manifest &manifest, CheckpointState &state,
                         std::string &modelSha, std::string &optimizerSha,
                         std::string &error);

/// Reads the checkpoint directory `dir` into `arena` (allocated) and
/// `state`, after checking it against `manifest`.
bool loadCheckpoint(const Manifest &manifest, Arena &arena,
                    const std::string &dir, CheckpointState &state,
                    std::string &error);

/// Sets every parameter from the safetensors file `path` (names as in the
/// manifest; F32, F64 or BF16 values are converted to the slot's dtype).
bool loadInitialWeights(const Manifest &manifest, Arena &arena,
                        const std::string &path, std::string &error);

} // namespace gptc::runtime

#endif // GPTC_RUNTIME_CHECKPOINT_H
