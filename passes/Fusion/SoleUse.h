//===- SoleUse.h - Matching helper of the fusion passes ---------*- C++ -*-===//
//
// A fusion may only swallow an intermediate that nothing outside the
// pattern reads; soleUseDef is how the matchers walk up such a chain.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_PASSES_FUSION_SOLEUSE_H
#define GPTC_PASSES_FUSION_SOLEUSE_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/STLExtras.h"

#include <initializer_list>

namespace gptc::fusion {

/// True when every user of `v` is one of `users`.
inline bool onlyUsedBy(mlir::Value v,
                       std::initializer_list<mlir::Operation *> users) {
  return llvm::all_of(v.getUsers(), [&](mlir::Operation *u) {
    return llvm::is_contained(users, u);
  });
}

/// The op defining `v` when it is an OpT read only by `user`.
template <typename OpT> OpT soleUseDef(mlir::Value v, mlir::Operation *user) {
  auto op = v.getDefiningOp<OpT>();
  if (!op || !onlyUsedBy(v, {user}))
    return nullptr;
  return op;
}

} // namespace gptc::fusion

#endif // GPTC_PASSES_FUSION_SOLEUSE_H
