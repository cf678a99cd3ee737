//===- GraphBuilder.h - Building gpt graphs from math -----------*- C++ -*-===//
//
// Small helpers over OpBuilder that write the math of a GPT model as `gpt`
// primitives: linear layers, RMSNorm as `x * rsqrt(mean(x^2) + eps)`,
// softmax as max/sub/exp/sum/div, cross-entropy as log-sum-exp minus the
// target logit. The fusion passes look for exactly these shapes of IR.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_DIALECT_GPT_GRAPHBUILDER_H
#define GPTC_DIALECT_GPT_GRAPHBUILDER_H

#include "dialects/GPT/GPTDialect.h"

#include "mlir/IR/Builders.h"

namespace gptc {

class GraphBuilder {
public:
  /// `compute` is the element type of activations; when `matmulType` differs
  /// (bf16 autocast) matmul operands are cast to it and results back.
  GraphBuilder(mlir::OpBuilder &b, mlir::Type compute, mlir::Type matmulType)
      : b(b), compute(compute), matmulType(matmulType) {}

  mlir::OpBuilder &builder() { return b; }
  mlir::Type computeType() const { return compute; }
  void setLoc(mlir::Location l) { loc = l; }
  mlir::Location getLoc() const { return *loc; }

  static mlir::RankedTensorType typeOf(mlir::Value v) {
    return mlir::cast<mlir::RankedTensorType>(v.getType());
  }
  mlir::RankedTensorType tensor(llvm::ArrayRef<int64_t> shape,
                                mlir::Type elt = {}) const {
    return mlir::RankedTensorType::get(shape, elt ? elt : compute);
  }

  // Elementwise.
  mlir::Value add(mlir::Value a, mlir::Value c);
  mlir::Value sub(mlir::Value a, mlir::Value c);
  mlir::Value mul(mlir::Value a, mlir::Value c);
  mlir::Value div(mlir::Value a, mlir::Value c);
  mlir::Value scale(mlir::Value x, double s);
  mlir::Value shift(mlir::Value x, double s);
  /// a AND c for i1 tensors (select(a, c, false)).
  mlir::Value logicalAnd(mlir::Value a, mlir::Value c);
  mlir::Value compare(mlir::gpt::CompareKind kind, mlir::Value a,
                      mlir::Value c);
  mlir::Value cast(mlir::Value x, mlir::Type elt);

  // Constants and shapes.
  mlir::Value splat(llvm::ArrayRef<int64_t> shape, mlir::Type elt, double v);
  mlir::Value constantVector(llvm::ArrayRef<float> values);
  mlir::Value iota(llvm::ArrayRef<int64_t> shape, int64_t dim, mlir::Type elt);
  mlir::Value broadcastTo(mlir::Value x, llvm::ArrayRef<int64_t> shape);
  mlir::Value reshape(mlir::Value x, llvm::ArrayRef<int64_t> shape);
  mlir::Value transpose(mlir::Value x, llvm::ArrayRef<int64_t> perm);
  mlir::Value slice(mlir::Value x, llvm::ArrayRef<int64_t> offsets,
                    llvm::ArrayRef<int64_t> sizes);
  mlir::Value concat(mlir::ValueRange xs, int64_t dim);
  llvm::SmallVector<mlir::Value> split(mlir::Value x, int64_t dim, int64_t n);
  /// Element `i` of a rank-1 parameter, shaped [1, ..., 1] (rank `rank`).
  mlir::Value scalarOf(mlir::Value vec, int64_t i, int64_t rank);
  /// x * s where s is a [1, ..., 1] tensor broadcast to x's shape.
  mlir::Value mulByScalar(mlir::Value x, mlir::Value s);

  // Reductions.
  mlir::Value reduce(mlir::gpt::ReduceKind kind, mlir::Value x,
                     llvm::ArrayRef<int64_t> dims);

  // Layers, written as the math.
  /// x W^T with x [..., in] and W [out, in].
  mlir::Value linear(mlir::Value x, mlir::Value weight);
  mlir::Value matmul(mlir::Value a, mlir::Value c, bool transposeA,
                     bool transposeC);
  /// alpha op(a) op(c) + beta addend as one gpt.matmul_add in the matmul
  /// type, cast back to the type of `a`.
  mlir::Value matmulAdd(mlir::Value a, mlir::Value c, bool transposeA,
                        bool transposeC, double alpha, mlir::Value addend,
                        double beta);
  /// x * rsqrt(mean(x^2, -1) + eps).
  mlir::Value rmsNorm(mlir::Value x, double eps);
  /// exp(x - max) / sum(exp(x - max)) over the last dimension.
  mlir::Value softmax(mlir::Value x);
  /// mean over positions of logsumexp(logits) - logits[target]; a 0-d
  /// tensor.
  mlir::Value crossEntropy(mlir::Value logits, mlir::Value targets);

private:
  mlir::OpBuilder &b;
  mlir::Type compute;
  mlir::Type matmulType;
  std::optional<mlir::Location> loc;
};

} // namespace gptc

#endif // GPTC_DIALECT_GPT_GRAPHBUILDER_H
