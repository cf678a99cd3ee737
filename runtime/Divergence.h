//===- Divergence.h - Stopping a diverging run ------------------*- C++ -*-===//
//
// After every optimizer step the training loop asks a DivergenceGuard
// whether the run still makes sense. It does not when
//
//   - the loss is not finite, or not positive (a cross-entropy is > 0),
//   - the loss exceeds `factor` times the first step's loss
//     (training.divergence_factor, carried by the manifest; 0 = off),
//   - a parameter group's parameters are no longer finite, or
//   - a group's parameter RMS grew more than kGrowth-fold in one step
//     (an optimizer gone wild: Muon's orthogonalised updates keep the loss
//     at ln V while the weights explode, which no loss test sees). Growth
//     is judged from a floor, not from zero: from max(previous RMS, the
//     group's learning rate clamped to [0.01, 1]), since one step may move
//     every parameter by about the learning rate (Adam's first step does), so a
//     small init (embedding_init_std 0.001 -> RMS 0.08 after step 1) is
//     training, not diverging.
//
// training.divergence_factor 0 turns the loss-ratio and growth tests off;
// a loss that is not finite or not positive still stops the run (no step
// after it can mean anything).
//
// The guard then writes one line naming the step, the reason and the group
// whose RMS grew the most, e.g.
//
//   diverged at step 1: the parameters of group 'hidden' grew from RMS
//   0.0198 to 1.1e+05 in one step (more than 10x); largest growth: group
//   'hidden' (parameter RMS 0.0198 -> 1.1e+05)
//
// It reads no parameter: the update step writes each group's sum of
// squares into the slot param_sq_norms (G words), which the loop copies
// back with the loss. Only the initial RMS is measured from the host's
// parameters, once.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_RUNTIME_DIVERGENCE_H
#define GPTC_RUNTIME_DIVERGENCE_H

#include "runtime/Arena.h"
#include "runtime/Manifest.h"

#include <cstdint>
#include <string>
#include <vector>

namespace gptc {
namespace runtime {

class DivergenceGuard {
public:
  /// A group's parameter RMS may grow at most this many times in one step.
  static constexpr double kGrowth = 10.0;
  /// The least RMS growth is measured from: the group's learning rate,
  /// clamped to [kRmsFloor, kRmsFloorMax] (a learning rate above 1 is no
  /// excuse: lr 1e6 on Muon's matrices is the divergence to catch).
  static constexpr double kRmsFloor = 0.01, kRmsFloorMax = 1.0;

  /// Watches the loss and, through the slot param_sq_norms of `arena`
  /// (allocated, its parameters initialised or restored), each optimizer
  /// group's parameter RMS. A bundle without that slot gets the loss
  /// tests only.
  DivergenceGuard(const Manifest &manifest, Arena &arena);

  /// The slot to copy back after each step with the loss (null: none).
  const Slot *normsSlot() const { return norms; }

  /// Called after optimizer step `step` (1-based) with its loss, the slot
  /// of normsSlot() current. Returns false and sets `error` (one line) when
  /// the run diverged.
  bool check(int64_t step, double loss, std::string &error);

  /// The loss later ones are compared with (false before the first step);
  /// a resumed run restores it from its checkpoint.
  bool firstLossSeen(double &loss) const {
    loss = firstLoss;
    return haveFirst;
  }
  void restoreFirstLoss(double loss) {
    firstLoss = loss;
    haveFirst = true;
  }

private:
  struct Group {
    std::string name;
    int64_t elements = 0;
    double rms = 0.0, previousRms = 0.0;
    /// The RMS growth is measured from at least this (the group's lr).
    double floor = 0.0;
  };

  Arena &arena;
  const Slot *norms = nullptr;
  double factor;
  double firstLoss = 0.0;
  bool haveFirst = false;
  std::vector<Group> groups; ///< in the order of param_sq_norms
};

} // namespace runtime
} // namespace gptc

#endif // GPTC_RUNTIME_DIVERGENCE_H
