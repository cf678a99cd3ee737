//===- PureInliner.h - Inliner interface for pure tensor dialects -*- C++
//-*-===//

#ifndef GPTC_DIALECTS_PUREINLINER_H
#define GPTC_DIALECTS_PUREINLINER_H

#include "mlir/Transforms/InliningUtils.h"

namespace gptc {

/// The ops of gpt and optim are pure tensor computations: any of them may be
/// inlined, so the step's entry points absorb @forward, @forward_grad and
/// @update.
struct PureInlinerInterface : mlir::DialectInlinerInterface {
  using mlir::DialectInlinerInterface::DialectInlinerInterface;
  bool isLegalToInline(mlir::Operation *, mlir::Region *, bool,
                       mlir::IRMapping &) const final {
    return true;
  }
};

} // namespace gptc

#endif // GPTC_DIALECTS_PUREINLINER_H
