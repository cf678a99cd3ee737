//===- RunClaim.h - A training run's hold on its checkpoint directory -*- C++
//-*-===//
//
// A directory of checkpoints belongs to one run. Every checkpoint records
// the run that wrote it (checkpoint.json's `run_id`: 32 hex digits drawn
// when a run starts, carried on by --resume), and a live run holds
// DIR/.gptc-run for its whole life:
//
//   - an exclusive, non-blocking flock (the kernel drops it when the
//     process dies, however it dies), so a second run saving into DIR --
//     two new runs, two --resume of one directory -- is refused at start;
//   - one JSON line naming the holder: run id, pid, host, start time, so
//     the refusal says who.
//
// `claimCheckpointDirectory` takes it before the first step, on every
// path that can save (periodic saves, the end, a stop by signal), and
// checks what DIR holds against the run: checkpoints of another run are
// refused (unless --force), and a step_N that is not a checkpoint (a
// user's file or directory in the way) is found now, not at the save that
// would have failed on it after the whole run. `--keep` then removes only
// the run's own checkpoints (runtime/Checkpoint.h).
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_RUNTIME_RUNCLAIM_H
#define GPTC_RUNTIME_RUNCLAIM_H

#include <string>
#include <vector>

namespace gptc::runtime {

/// A new run's identity: 32 lowercase hex digits from getrandom(2).
std::string newRunId();

/// The hold of a live run on its checkpoint directory (DIR/.gptc-run,
/// flocked). Released, and the file removed, when destroyed; the directory
/// too when the claim made it and nothing was saved there.
class RunClaim {
public:
  RunClaim() = default;
  ~RunClaim() { release(); }
  RunClaim(const RunClaim &) = delete;
  RunClaim &operator=(const RunClaim &) = delete;

  /// Takes DIR/.gptc-run for `runId` (making DIR if missing). False with
  /// one `error` line when another live process holds it (naming it) or
  /// the file cannot be made.
  bool take(const std::string &dir, const std::string &runId,
            std::string &error);
  bool held() const { return fd >= 0; }
  /// Lets go now (what the destructor does).
  void release();
  const std::string &directory() const { return dir; }

private:
  std::string dir;
  int fd = -1;
  bool madeDirectory = false;
};

/// The name of the claim file in a checkpoint directory.
constexpr const char *kRunClaimFile = ".gptc-run";

/// What a checkpoint directory holds, seen by the run `runId` about to save
/// into it.
struct CheckpointDirectoryScan {
  /// Complete checkpoints written by another run (step_N paths), and those
  /// written before checkpoints recorded their run (no run_id).
  std::vector<std::string> foreign, unrecorded;
  /// step_N entries that are not checkpoints: a user's files in the way.
  std::vector<std::string> inTheWay;
};

/// Scans `dir` (missing: nothing in it).
CheckpointDirectoryScan scanCheckpointDirectory(const std::string &dir,
                                                const std::string &runId);

} // namespace gptc::runtime

#endif // GPTC_RUNTIME_RUNCLAIM_H
