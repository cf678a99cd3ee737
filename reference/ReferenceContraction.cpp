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
  // Walk the input; reduced dimensions have stride 0 in the result.
  SmallVector<int64_t, 4> strides = r.strides();
  int64_t count = 1;
  for (int64_t d : op.getDims()) {
    strides[d] = 0;
    count *= x.shape[d];
  }
  if (kind == ReduceKind::max) {
    // NaN propagates: once acc is NaN, no comparison replaces it.
    forEachStrided(x.shape, strides, 0, [&](int64_t lin, int64_t o) {
      if (std::isnan(x[lin]) || x[lin] > r[o])
        r[o] = x[lin];
    });
  } else {
    forEachStrided(x.shape, strides, 0,
                   [&](int64_t lin, int64_t o) { r[o] += x[lin]; });
  }
  if (kind == ReduceKind::mean)
    for (double &v : r.data)
      v /= static_cast<double>(count);
  out.push_back(std::move(r));
  return success();
}

/// r[b] = op(a[b]) x op(b[b]) over the last two dimensions; a rank-2 b
/// under a batched a is shared by every batch.
HostTensor product(const HostTensor &a, const HostTensor &b, bool ta, bool tb,
                   ArrayRef<int64_t> shape) {
  int64_t ar = a.rank(), br = b.rank();
  int64_t aRows = a.shape[ar - 2], aCols = a.shape[ar - 1];
  int64_t bRows = b.shape[br - 2], bCols = b.shape[br - 1];
  int64_t m = ta ? aCols : aRows, k = ta ? aRows : aCols;
  int64_t n = tb ? bRows : bCols;
  bool shared = br == 2 && ar > 2;
  int64_t batch = numElementsOf(ArrayRef<int64_t>(a.shape).drop_back(2));
  HostTensor r(shape);
  int64_t aMat = aRows * aCols, bMat = bRows * bCols;
  // op(A) as [m, k] and op(B) as [k, n], row-major; then C[i, j] is
  // accumulated over p = 0, 1, ... in order (i-p-j loop).
  std::vector<double> opA(m * k), opB(k * n);
  for (int64_t bi = 0; bi < batch; ++bi) {
    const double *A = a.data.data() + bi * aMat;
    const double *B = b.data.data() + (shared ? 0 : bi * bMat);
    double *C = r.data.data() + bi * m * n;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t p = 0; p < k; ++p)
        opA[i * k + p] = ta ? A[p * aCols + i] : A[i * aCols + p];
    if (bi == 0 || !shared)
      for (int64_t p = 0; p < k; ++p)
        for (int64_t j = 0; j < n; ++j)
          opB[p * n + j] = tb ? B[j * bCols + p] : B[p * bCols + j];
    for (int64_t i = 0; i < m; ++i) {
      double *row = C + i * n;
      for (int64_t p = 0; p < k; ++p) {
        double av = opA[i * k + p];
        const double *brow = opB.data() + p * n;
        for (int64_t j = 0; j < n; ++j)
          row[j] += av * brow[j];
      }
    }
  }
  return r;
}

LogicalResult evalMatmul(MatmulOp op, ArrayRef<HostTensor> in,
                         EvalResults &out) {
  out.push_back(product(in[0], in[1], op.getTransposeLhs(),
                        op.getTransposeRhs(), resultShape(op)));
  return success();
}

/// alpha op(lhs) x op(rhs) + beta addend.
LogicalResult evalMatmulAdd(MatmulAddOp op, ArrayRef<HostTensor> in,
                            EvalResults &out) {
  HostTensor r = product(in[0], in[1], op.getTransposeLhs(),
                         op.getTransposeRhs(), resultShape(op));
  double alpha = op.getAlpha().convertToDouble();
  double beta = op.getBeta().convertToDouble();
  for (size_t i = 0; i < r.data.size(); ++i)
    r.data[i] = alpha * r.data[i] + beta * in[2].data[i];
  out.push_back(std::move(r));
  return success();
}

} // namespace

void attachContractionModels(MLIRContext *ctx) {
  attach<ReduceOp, evalReduce>(ctx);
  attach<MatmulOp, evalMatmul>(ctx);
  attach<MatmulAddOp, evalMatmulAdd>(ctx);
}

} // namespace gptc::ref::detail
