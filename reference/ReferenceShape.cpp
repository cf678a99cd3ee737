//===- ReferenceShape.cpp - Reference semantics: data movement ------------===//
//
// Gathers (embedding, gather_last), shape changes (broadcast, reshape,
// transpose), slicing and joining (slice, concat, split) and their adjoints
// in backward graphs (embedding_grad, scatter_last, pad).
//
//===----------------------------------------------------------------------===//

#include "reference/ReferenceModels.h"

using namespace mlir;
using namespace mlir::gpt;

namespace gptc::ref::detail {

/// Checks that every id of `ids` indexes [0, bound).
LogicalResult checkIds(Operation *op, const HostTensor &ids, int64_t bound,
                       StringRef what) {
  for (int64_t i = 0, e = ids.size(); i < e; ++i) {
    int64_t id = asIndex(ids[i]);
    if (id < 0 || id >= bound || static_cast<double>(id) != ids[i])
      return op->emitOpError() << what << " " << ids[i] << " at position " << i
                               << " is outside [0, " << bound << ")";
  }
  return success();
}

namespace {

//===----------------------------------------------------------------------===//
// Gathers and their adjoints
//===----------------------------------------------------------------------===//

/// result[p, :] = table[ids[p], :] for every position p of ids.
LogicalResult evalEmbedding(EmbeddingOp op, ArrayRef<HostTensor> in,
                            EvalResults &out) {
  const HostTensor &table = in[0], &ids = in[1];
  int64_t rows = table.shape[0], dim = table.shape[1];
  if (failed(checkIds(op, ids, rows, "id")))
    return failure();
  HostTensor r(resultShape(op));
  for (int64_t p = 0, e = ids.size(); p < e; ++p) {
    int64_t row = asIndex(ids[p]);
    std::copy_n(table.data.begin() + row * dim, dim, r.data.begin() + p * dim);
  }
  out.push_back(std::move(r));
  return success();
}

/// result = zeros(table); result[ids[p], :] += grad[p, :].
LogicalResult evalEmbeddingGrad(EmbeddingGradOp op, ArrayRef<HostTensor> in,
                                EvalResults &out) {
  const HostTensor &grad = in[0], &ids = in[1];
  HostTensor r(resultShape(op));
  int64_t rows = r.shape[0], dim = r.shape[1];
  if (failed(checkIds(op, ids, rows, "id")))
    return failure();
  for (int64_t p = 0, e = ids.size(); p < e; ++p) {
    int64_t row = asIndex(ids[p]);
    for (int64_t j = 0; j < dim; ++j)
      r[row * dim + j] += grad[p * dim + j];
  }
  out.push_back(std::move(r));
  return success();
}

/// result[p] = input[p, index[p]].
LogicalResult evalGatherLast(GatherLastOp op, ArrayRef<HostTensor> in,
                             EvalResults &out) {
  const HostTensor &x = in[0], &index = in[1];
  int64_t last = x.shape.back();
  if (failed(checkIds(op, index, last, "index")))
    return failure();
  HostTensor r(resultShape(op));
  for (int64_t p = 0, e = index.size(); p < e; ++p)
    r[p] = x[p * last + asIndex(index[p])];
  out.push_back(std::move(r));
  return success();
}

/// result = zeros; result[p, index[p]] = grad[p].
LogicalResult evalScatterLast(ScatterLastOp op, ArrayRef<HostTensor> in,
                              EvalResults &out) {
  const HostTensor &grad = in[0], &index = in[1];
  HostTensor r(resultShape(op));
  int64_t last = r.shape.back();
  if (failed(checkIds(op, index, last, "index")))
    return failure();
  for (int64_t p = 0, e = index.size(); p < e; ++p)
    r[p * last + asIndex(index[p])] = grad[p];
  out.push_back(std::move(r));
  return success();
}

//===----------------------------------------------------------------------===//
// Shape changes
//===----------------------------------------------------------------------===//

/// Repeats size-1 dimensions of the input to the result shape.
LogicalResult evalBroadcast(BroadcastOp op, ArrayRef<HostTensor> in,
                            EvalResults &out) {
  const HostTensor &x = in[0];
  HostTensor r(resultShape(op));
  SmallVector<int64_t, 4> strides = x.strides();
  for (int64_t d = 0; d < x.rank(); ++d)
    if (x.shape[d] == 1)
      strides[d] = 0;
  forEachStrided(r.shape, strides, 0,
                 [&](int64_t lin, int64_t src) { r[lin] = x[src]; });
  out.push_back(std::move(r));
  return success();
}

/// Same row-major elements, the result's shape.
LogicalResult evalReshape(ReshapeOp op, ArrayRef<HostTensor> in,
                          EvalResults &out) {
  out.push_back(HostTensor(resultShape(op), in[0].data));
  return success();
}

/// result[i_0, ..., i_n] = input[j] with j[perm[d]] = i_d.
LogicalResult evalTranspose(TransposeOp op, ArrayRef<HostTensor> in,
                            EvalResults &out) {
  const HostTensor &x = in[0];
  ArrayRef<int64_t> perm = op.getPermutation();
  HostTensor r(resultShape(op));
  SmallVector<int64_t, 4> xStrides = x.strides(), strides(x.rank());
  for (int64_t d = 0; d < x.rank(); ++d)
    strides[d] = xStrides[perm[d]];
  forEachStrided(r.shape, strides, 0,
                 [&](int64_t lin, int64_t src) { r[lin] = x[src]; });
  out.push_back(std::move(r));
  return success();
}

//===----------------------------------------------------------------------===//
// Slicing and joining
//===----------------------------------------------------------------------===//

/// result[i] = input[i + offsets].
LogicalResult evalSlice(SliceOp op, ArrayRef<HostTensor> in, EvalResults &out) {
  const HostTensor &x = in[0];
  ArrayRef<int64_t> offsets = op.getOffsets();
  HostTensor r(resultShape(op));
  SmallVector<int64_t, 4> strides = x.strides();
  forEachStrided(r.shape, strides, x.offset(offsets),
                 [&](int64_t lin, int64_t src) { r[lin] = x[src]; });
  out.push_back(std::move(r));
  return success();
}

/// zeros of the result shape with result[i + offsets] = input[i].
LogicalResult evalPad(PadOp op, ArrayRef<HostTensor> in, EvalResults &out) {
  const HostTensor &x = in[0];
  ArrayRef<int64_t> offsets = op.getOffsets();
  HostTensor r(resultShape(op));
  SmallVector<int64_t, 4> strides = r.strides();
  forEachStrided(x.shape, strides, r.offset(offsets),
                 [&](int64_t lin, int64_t dst) { r[dst] = x[lin]; });
  out.push_back(std::move(r));
  return success();
}

/// The inputs one after the other along `dim`.
LogicalResult evalConcat(ConcatOp op, ArrayRef<HostTensor> in,
                         EvalResults &out) {
  int64_t dim = op.getDim();
  HostTensor r(resultShape(op));
  SmallVector<int64_t, 4> strides = r.strides();
  int64_t offset = 0;
  for (const HostTensor &x : in) {
    forEachStrided(x.shape, strides, offset * strides[dim],
                   [&](int64_t lin, int64_t dst) { r[dst] = x[lin]; });
    offset += x.shape[dim];
  }
  out.push_back(std::move(r));
  return success();
}

/// Result k is the k-th of n equal slices along `dim`.
LogicalResult evalSplit(SplitOp op, ArrayRef<HostTensor> in, EvalResults &out) {
  const HostTensor &x = in[0];
  int64_t dim = op.getDim();
  SmallVector<int64_t, 4> strides = x.strides();
  for (unsigned k = 0, n = op.getNumResults(); k < n; ++k) {
    HostTensor r(resultShape(op, k));
    int64_t offset = k * r.shape[dim];
    forEachStrided(r.shape, strides, offset * strides[dim],
                   [&](int64_t lin, int64_t src) { r[lin] = x[src]; });
    out.push_back(std::move(r));
  }
  return success();
}

} // namespace

void attachShapeModels(MLIRContext *ctx) {
  attach<EmbeddingOp, evalEmbedding>(ctx);
  attach<EmbeddingGradOp, evalEmbeddingGrad>(ctx);
  attach<GatherLastOp, evalGatherLast>(ctx);
  attach<ScatterLastOp, evalScatterLast>(ctx);
  attach<BroadcastOp, evalBroadcast>(ctx);
  attach<ReshapeOp, evalReshape>(ctx);
  attach<TransposeOp, evalTranspose>(ctx);
  attach<SliceOp, evalSlice>(ctx);
  attach<PadOp, evalPad>(ctx);
  attach<ConcatOp, evalConcat>(ctx);
  attach<SplitOp, evalSplit>(ctx);
}

} // namespace gptc::ref::detail
