//===- Trainer.h - The training loop ----------------------------*- C++ -*-===//
//
// Runs a compiled step (REFERENCE §5): for step s in [0, N)
//
//   zero grad.* and loss; step = s
//   grad_accum times: next batch -> tokens/targets, gptc_grad_step
//   gptc_update_step (the entry points of runtime/gptrt.h)
//   print  step 12/200 | loss 3.456789 | lr 0.985 | 12,345 tok/s | 1.23 s
//
// Validation (before the first step, every `valEvery` steps and after the
// last) runs gptc_eval_step over the same first `valTokens` tokens of the
// val shards and prints `val step 50/200 | val_loss 3.2100`; its time is
// not on the clock. A summary line ends the run. Nothing here depends on
// time or threads, so a bundle, data and seed give bit-identical losses.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_RUNTIME_TRAINER_H
#define GPTC_RUNTIME_TRAINER_H

#include "runtime/Manifest.h"
#include "runtime/StepDevice.h"
#include "runtime/StepLibrary.h"
#include "runtime/StopSignals.h"
#include "runtime/TrainerText.h"

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace gptc {
namespace runtime {

struct TrainConfig {
  int64_t steps = 0; ///< optimizer steps of the run (the schedules')
  /// End this run after this many steps of it (0: at `steps`); the
  /// schedules still span `steps`, and --resume continues to it.
  int64_t stopAfter = 0;
  uint64_t seed = 0; ///< parameter initialisation
  std::string trainPattern, valPattern;
  /// Validate every this many steps (and at step 0); 0 = only at the end.
  int64_t valEvery = 0;
  /// Validation tokens wanted; rounded down to whole batches and clamped to
  /// what the val shards hold (with a note). 0 = no validation.
  int64_t valTokens = 0;
  /// Steps left out of the mean step time (fewer on short runs).
  int64_t timingSkipSteps = 10;
  /// Print every this many steps' line (and the first and the last); the
  /// --log and --tensorboard files still get every step. 0 or 1: all.
  int64_t logEvery = 0;
  /// The peak the MFU is against, in FLOP/s a rank (0: no MFU), and what it
  /// is (the header says it): the step's model FLOPs (the manifest's
  /// step_flops) over its time over this.
  double peakFlops = 0.0;
  std::string peakSource;
  /// Read the next training batch on a background thread.
  bool prefetch = true;
  /// After the last step, write the parameters here (runtime/ParamFile.h).
  std::string saveParamsPath;
  /// Checkpoints (runtime/Checkpoint.h) go to checkpointDir/step_S: every
  /// saveEvery steps (0 = not periodically), after the last step when
  /// saveEvery > 0 or saveAtEnd, and when a signal stops the run; keep > 0
  /// keeps only the newest `keep`.
  std::string checkpointDir = "checkpoints";
  int64_t saveEvery = 0, keep = 0;
  bool saveAtEnd = false;
  /// The run's identity, recorded in its checkpoints (runtime/RunClaim.h):
  /// --keep removes only its own, and those recording no run when
  /// `keepUnrecorded` (a run resumed from one of them).
  std::string runId;
  bool keepUnrecorded = false;
  /// Whether this run holds checkpointDir (rank 0): without it a stop by
  /// signal saves nothing and says why (`unclaimedReason`).
  bool checkpointDirClaimed = true;
  std::string unclaimedReason;
  /// Continue from this checkpoint directory (a step_S), or start from the
  /// weights of this safetensors file.
  std::string resumePath, initPath;
  /// Also write every step and validation as a JSON line here (rank 0;
  /// appended to when resuming): {"type": "train", "step", "loss", "lr",
  /// "tokens", "tok_per_s", "elapsed"} and {"type": "val", "step",
  /// "val_loss", "tokens", "elapsed"}; elapsed in seconds since the run
  /// started, tokens trained so far.
  std::string logPath;
  /// Also write every step's and validation's scalars (train/loss,
  /// train/lr_mult, train/lr/GROUP, train/tok_per_s; val/loss) as
  /// TensorBoard events into a new file in this directory (rank 0;
  /// runtime/TensorBoardEvents.h).
  std::string tensorboardDir;
  /// On SIGINT, SIGTERM, SIGHUP, SIGPIPE or SIGUSR1, finish the step, save
  /// a checkpoint, print the summary and stop (TrainResult::
  /// stoppedBySignal); the ranks of a job agree on the step. A second
  /// SIGINT, SIGTERM or SIGHUP ends the process at once.
  bool stopOnSignal = true;
  /// This process's place among the data-parallel ranks: it reads its
  /// slice of every batch (runtime/data/DataLoader.h); only rank 0 writes
  /// files. The compiled step averages over the ranks itself.
  int rank = 0, worldSize = 1;
};

struct ValPoint {
  int64_t step = 0; ///< optimizer steps done
  double loss = 0.0;
};

struct TrainResult {
  std::vector<float> losses; ///< training loss of every step
  std::vector<ValPoint> val;
  int64_t valTokens = 0;  ///< validation tokens actually used
  int64_t timedSteps = 0; ///< steps in the mean
  double meanStepSeconds = 0.0;
  double tokensPerSecond = 0.0;
  /// With several ranks: the share of the timed steps' time spent waiting
  /// for collectives (runtime/comm/Collectives.h).
  double commWaitShare = 0.0;
  int64_t peakRssKiB = 0;
  int64_t firstStep = 0;   ///< steps done before this run (a resumed one)
  int stoppedBySignal = 0; ///< the signal that stopped the run, or 0
};

/// Trains `step` (laid out by `manifest`) per `config`. Returns false and
/// sets `error` (one line) on a data error or when the run diverges
/// (runtime/Divergence.h).

bool train(const Manifest &manifest, const StepLibrary &step,
           const TrainConfig &config, std::ostream &out, TrainResult &result,
           std::string &error);
/// The same on `device` (the overload above: the CPU).
bool train(const Manifest &manifest, const StepLibrary &step,
           StepDevice &device, const TrainConfig &config, std::ostream &out,
           TrainResult &result, std::string &error);

} // namespace runtime
} // namespace gptc

#endif // GPTC_RUNTIME_TRAINER_H
