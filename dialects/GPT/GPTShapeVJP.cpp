//===- GPTShapeVJP.cpp - VJPs of gpt data-movement ops
//---------------------===//

#include "dialects/GPT/GPTDialect.h"
#include "dialects/GPT/GPTVJPUtils.h"

using namespace mlir;
using namespace mlir::gpt;
using namespace mlir::gpt::vjp;

// d table = rows of g scattered-added at ids; ids have no gradient.
LogicalResult EmbeddingOp::buildVJP(OpBuilder &b, ValueRange grads,
                                    SmallVectorImpl<Value> &out) {
  out.append({EmbeddingGradOp::create(b, getLoc(), getTable().getType(),
                                      grads[0], getIds()),
              Value()});
  return success();
}

// d input = g placed at index along the last dimension, zero elsewhere.
LogicalResult GatherLastOp::buildVJP(OpBuilder &b, ValueRange grads,
                                     SmallVectorImpl<Value> &out) {
  out.append({ScatterLastOp::create(b, getLoc(), getInput().getType(), grads[0],
                                    getIndex()),
              Value()});
  return success();
}

// d broadcast = sum of g over the broadcast dimensions.
LogicalResult BroadcastOp::buildVJP(OpBuilder &b, ValueRange grads,
                                    SmallVectorImpl<Value> &out) {
  RankedTensorType in = getInput().getType();
  RankedTensorType res = getResult().getType();
  SmallVector<int64_t> dims;
  for (int64_t i = 0; i < in.getRank(); ++i)
    if (in.getDimSize(i) != res.getDimSize(i))
      dims.push_back(i);
  if (dims.empty()) {
    out.push_back(grads[0]);
    return success();
  }
  out.push_back(ReduceOp::create(b, getLoc(), in, ReduceKind::sum, grads[0],
                                 b.getDenseI64ArrayAttr(dims)));
  return success();
}

// d reshape = g reshaped back.
LogicalResult ReshapeOp::buildVJP(OpBuilder &b, ValueRange grads,
                                  SmallVectorImpl<Value> &out) {
  out.push_back(ReshapeOp::create(b, getLoc(), getInput().getType(), grads[0]));
  return success();
}

// d transpose = g transposed by the inverse permutation.
LogicalResult TransposeOp::buildVJP(OpBuilder &b, ValueRange grads,
                                    SmallVectorImpl<Value> &out) {
  ArrayRef<int64_t> perm = getPermutation();
  SmallVector<int64_t> inverse(perm.size());
  for (auto [i, p] : llvm::enumerate(perm))
    inverse[p] = static_cast<int64_t>(i);
  out.push_back(TransposeOp::create(b, getLoc(), getInput().getType(), grads[0],
                                    b.getDenseI64ArrayAttr(inverse)));
  return success();
}

// d slice = g padded with zeros back to the input shape.
LogicalResult SliceOp::buildVJP(OpBuilder &b, ValueRange grads,
                                SmallVectorImpl<Value> &out) {
  out.push_back(PadOp::create(b, getLoc(), getInput().getType(), grads[0],
                              getOffsetsAttr()));
  return success();
}

// d concat = the slices of g that each input became.
LogicalResult ConcatOp::buildVJP(OpBuilder &b, ValueRange grads,
                                 SmallVectorImpl<Value> &out) {
  int64_t dim = getDim();
  int64_t offset = 0;
  int64_t rank = getResult().getType().getRank();
  for (Value in : getInputs()) {
    auto t = cast<RankedTensorType>(in.getType());
    SmallVector<int64_t> offsets(rank, 0);
    offsets[dim] = offset;
    out.push_back(SliceOp::create(b, getLoc(), t, grads[0],
                                  b.getDenseI64ArrayAttr(offsets)));
    offset += t.getDimSize(dim);
  }
  return success();
}

// d split = the gradients of the parts, concatenated (zeros for parts that
// do not reach the loss).
LogicalResult SplitOp::buildVJP(OpBuilder &b, ValueRange grads,
                                SmallVectorImpl<Value> &out) {
  SmallVector<Value> parts;
  for (auto [g, r] : llvm::zip_equal(grads, getResults()))
    parts.push_back(g ? g : zerosLike(b, getLoc(), r.getType()));
  out.push_back(
      ConcatOp::create(b, getLoc(), getInput().getType(), parts, getDim()));
  return success();
}
