//===- GPTProductFlops.cpp - FLOPs of the gpt ops' matrix products --------===//
//
// ProductFlopsOpInterface for gpt.matmul, gpt.matmul_add, gpt.attention and
// gpt.attention_grad: model FLOPs (2·M·N·K a product) from operand types,
// what gptc-count-step-flops sums into a step's count.
//
//===----------------------------------------------------------------------===//

#include "dialects/GPT/GPTDialect.h"

using namespace mlir;
using namespace mlir::gpt;

namespace {

/// 2 · (elements of the result) · K, K the contracted extent of `lhs`.
double productFlops(Value lhs, bool transposeLhs, Value result) {
  auto l = cast<RankedTensorType>(lhs.getType());
  auto r = cast<RankedTensorType>(result.getType());
  int64_t rank = l.getRank();
  double k = double(l.getDimSize(transposeLhs ? rank - 2 : rank - 1));
  return 2.0 * double(r.getNumElements()) * k;
}

/// FLOPs of one pass of `products` query-key products (QK^T, PV, ...) over
/// the pairs the mask allows at most: causal T(T+1)/2 a head, else T·Tk.
double attentionFlops(Value query, Value key, MaskAttr mask, int products) {
  auto q = cast<RankedTensorType>(query.getType());
  auto k = cast<RankedTensorType>(key.getType());
  double batchHeads = double(q.getDimSize(0) * q.getDimSize(1));
  double t = double(q.getDimSize(2)), tk = double(k.getDimSize(2));
  double d = double(q.getDimSize(3));
  double pairs = mask.getCausal() ? t * (t + 1.0) / 2.0 : t * tk;
  return 2.0 * products * batchHeads * pairs * d;
}

} // namespace

double MatmulOp::productFlops() {
  return ::productFlops(getLhs(), getTransposeLhs(), getResult());
}

double MatmulAddOp::productFlops() {
  return ::productFlops(getLhs(), getTransposeLhs(), getResult());
}

// QK^T and PV.
double AttentionOp::productFlops() {
  return attentionFlops(getQuery(), getKey(), getMask(), 2);
}

// dV = P^T dO, dP = dO V^T, dQ = dS K, dK = dS^T Q (a kernel's recomputed
// QK^T is not a model FLOP).
double AttentionGradOp::productFlops() {
  return attentionFlops(getQuery(), getKey(), getMask(), 4);
}
