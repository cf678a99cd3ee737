//===- ReferenceContraction.cpp - Reference semantics: reduce, matmul -----===//

#include "reference/ReferenceModels.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::gpt;

namespace gptc::ref::detail {
namespace {

/// sum / mean / max over `dims`, which become size 1.
LogicalResult evalReduce(ReduceOp op, ArrayRef<HostTensor> in,
                         EvalResults &out) {
  const HostTensor &x = in[0];
  HostTensor r(resultShape(op));
  ReduceKind kind = op.getKind();
  if (kind == ReduceKind::max)
    for (double &v : r.data)
      v = -std::numeric_limits<double>::infinity();
  SmallVector<bool, 4> reduced(x.rank(), false);
  int64_t count = 1;
  for (int64_t d : op.getDims()) {
    reduced[d] = true;
    count *= x.shape[d];
  }
  SmallVector<int64_t, 4> outIdx(x.rank());
  forEachIndex(x.shape, [&](ArrayRef<int64_t> idx, int64_t lin) {
    for (int64_t d = 0; d < x.rank(); ++d)
      outIdx[d] = reduced[d] ? 0 : idx[d];
    double &acc = r.at(outIdx);
    if (kind == ReduceKind::max) {
      // NaN propagates: once acc is NaN, no comparison replaces it.
      if (std::isnan(x[lin]) || x[lin] > acc)
        acc = x[lin];
    } else {
      acc += x[lin];
    }
  });
  if (kind == ReduceKind::mean)
    for (double &v : r.data)
      v /= static_cast<double>(count);
  out.push_back(std::move(r));
  return success();
}

/// result[b] = op(lhs[b]) x op(rhs[b]) over the last two dimensions; a
/// rank-2 rhs under a batched lhs is shared by every batch.
LogicalResult evalMatmul(MatmulOp op, ArrayRef<HostTensor> in,
                         EvalResults &out) {
  const HostTensor &a = in[0], &b = in[1];
  bool ta = op.getTransposeLhs(), tb = op.getTransposeRhs();
  int64_t ar = a.rank(), br = b.rank();
  int64_t aRows = a.shape[ar - 2], aCols = a.shape[ar - 1];
  int64_t bRows = b.shape[br - 2], bCols = b.shape[br - 1];
  int64_t m = ta ? aCols : aRows, k = ta ? aRows : aCols;
  int64_t n = tb ? bRows : bCols;
  bool shared = br == 2 && ar > 2;
  int64_t batch = numElementsOf(ArrayRef<int64_t>(a.shape).drop_back(2));
  HostTensor r(resultShape(op));
  int64_t aMat = aRows * aCols, bMat = bRows * bCols;
  for (int64_t bi = 0; bi < batch; ++bi) {
    const double *A = a.data.data() + bi * aMat;
    const double *B = b.data.data() + (shared ? 0 : bi * bMat);
    double *C = r.data.data() + bi * m * n;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0.0;
        for (int64_t p = 0; p < k; ++p) {
          double av = ta ? A[p * aCols + i] : A[i * aCols + p];
          double bv = tb ? B[j * bCols + p] : B[p * bCols + j];
          acc += av * bv;
        }
        C[i * n + j] = acc;
      }
  }
  out.push_back(std::move(r));
  return success();
}

} // namespace

void attachContractionModels(MLIRContext *ctx) {
  attach<ReduceOp, evalReduce>(ctx);
  attach<MatmulOp, evalMatmul>(ctx);
}

} // namespace gptc::ref::detail
