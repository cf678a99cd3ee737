//===- Divergence.h - Stopping a diverging run ------------------*- C++ -*-===//
//
// After every optimizer step the training loop asks a DivergenceGuard
// whether the run still makes sense. It does not when
//
//   - the loss is not finite,
//   - the loss exceeds `factor` times the first step's loss
//     (training.divergence_factor, carried by the manifest; 0 = off), or
//   - a parameter group's parameters are no longer finite.
//
// The guard then writes one line naming the step, the loss and the
// parameter group whose update (the change of its parameters in the step)
// had the largest norm, e.g.
//
//   diverged at step 2: loss 41.3 exceeds 10 x the first loss 5.58; largest
//   update: group 'hidden' (update norm 3.2e+06, parameter norm 3.2e+06)
//
// To measure updates it keeps an f32 copy of the parameters from the step
// before: one read-and-write pass over the parameters per step, spread
// over the OpenMP threads.
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
  /// Watches the param.* slots of `manifest` in `arena` (allocated and
  /// initialised), grouped by their optimizer group.
  DivergenceGuard(const Manifest &manifest, Arena &arena);

  /// Called after optimizer step `step` (1-based) with its loss. Returns
  /// false and sets `error` (one line) when the run diverged.
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
    std::vector<const Slot *> slots;
    double updateNorm = 0.0, paramNorm = 0.0;
  };
  /// Updates every group's norms and the copy of the parameters.
  void measure();

  Arena &arena;
  double factor;
  double firstLoss = 0.0;
  bool haveFirst = false;
  std::vector<Group> groups;
  std::vector<float> previous; ///< the parameters after the last step
};

} // namespace runtime
} // namespace gptc

#endif // GPTC_RUNTIME_DIVERGENCE_H
