//===- OptimizerKind.h - The optimizers a spec can name ---------*- C++ -*-===//
//
// The optimizers of `optimizer.groups.*.kind` and their table, in one file:
// a new optimizer is a value here and a row of optimizerTable() below (then
// its keys, emitter, op and lowering: docs/extending.md). The lookups are
// in OptimizerTable.h.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_FRONTEND_OPTIMIZERKIND_H
#define GPTC_FRONTEND_OPTIMIZERKIND_H

#include <vector>

namespace gptc {

enum class OptimizerKind { Muon, Adam };

struct OptimizerInfo {
  OptimizerKind kind;
  /// The spelling of `optimizer.groups.*.kind`.
  const char *name;
  /// As a sentence starts ("Muon only. ..."): the docs and messages.
  const char *title;
  /// The state slots of each parameter of a group, in order: the
  /// manifest's `state.PARAM.SLOT` and the step's arguments.
  std::vector<const char *> state;
  /// The optim op the frontend writes for each parameter (OptimizerGen).
  const char *op;
  /// What lowers the op to gpt math (and from there, kernels).
  const char *lowering;
};

/// Every optimizer, in the order of OptimizerKind's values.
inline const std::vector<OptimizerInfo> &optimizerTable() {
  static const std::vector<OptimizerInfo> table = {
      {OptimizerKind::Muon,
       "muon",
       "Muon",
       {"momentum"},
       "optim.muon",
       "gptc-lower-optim: momentum, then the orthogonalised update "
       "(optim.newton_schulz, batched by gptc-fuse-newton-schulz and split "
       "over ranks by gptc-distribute-newton-schulz; or the SVD backend's "
       "runtime call)"},
      {OptimizerKind::Adam,
       "adam",
       "Adam",
       {"m", "v"},
       "optim.adam",
       "gptc-lower-optim: the moments and the bias-corrected step as "
       "elementwise gpt ops"},
  };
  return table;
}

} // namespace gptc

#endif // GPTC_FRONTEND_OPTIMIZERKIND_H
