//===- GPTVJPUtils.h - Builders shared by the gpt VJPs ----------*- C++ -*-===//

#ifndef GPTC_DIALECT_GPT_GPTVJPUTILS_H
#define GPTC_DIALECT_GPT_GPTVJPUTILS_H

#include "dialects/GPT/GPTDialect.h"

namespace mlir::gpt::vjp {

/// A zero tensor of `type` (a gpt.constant splat).
Value zerosLike(OpBuilder &b, Location loc, Type type);
/// x * c and x + c for a constant c.
Value scale(OpBuilder &b, Location loc, Value x, double c);
Value shift(OpBuilder &b, Location loc, Value x, double c);
/// An i1 tensor of the shape of `lhs`.
Value compare(OpBuilder &b, Location loc, CompareKind kind, Value lhs,
              Value rhs);
/// gpt.matmul with its result type inferred.
Value matmul(OpBuilder &b, Location loc, Value lhs, Value rhs, bool ta,
             bool tb);
Value reshape(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> shape);

} // namespace mlir::gpt::vjp

#endif // GPTC_DIALECT_GPT_GPTVJPUTILS_H
