//===- GPTShapeOps.cpp - gpt op verifiers: data movement ------------------===//

#include "dialects/GPT/GPTDialect.h"

using namespace mlir;
using namespace mlir::gpt;

/// Checks that every operand and result of `op` has a static shape: the
/// verifiers below do arithmetic on sizes, where a dynamic size (kDynamic)
/// would be read as a large negative number.
static LogicalResult verifyStaticShapes(Operation *op) {
  auto check = [&](TypeRange types) -> LogicalResult {
    for (Type t : types)
      if (!cast<RankedTensorType>(t).hasStaticShape())
        return op->emitOpError() << "requires static shapes, got " << t;
    return success();
  };
  return success(succeeded(check(op->getOperandTypes())) &&
                 succeeded(check(op->getResultTypes())));
}

LogicalResult EmbeddingOp::verify() {
  RankedTensorType table = getTable().getType();
  RankedTensorType ids = getIds().getType();
  RankedTensorType out = getResult().getType();
  if (table.getRank() != 2)
    return emitOpError("table must be [vocab, dim]");
  SmallVector<int64_t> expected(ids.getShape());
  expected.push_back(table.getDimSize(1));
  if (ArrayRef<int64_t>(expected) != out.getShape() ||
      out.getElementType() != table.getElementType())
    return emitOpError("result must be the ids' shape followed by the table "
                       "row size, with the table's element type");
  return success();
}

LogicalResult GatherLastOp::verify() {
  RankedTensorType in = getInput().getType();
  RankedTensorType index = getIndex().getType();
  RankedTensorType out = getResult().getType();
  if (in.getRank() != index.getRank() + 1 ||
      in.getShape().drop_back() != index.getShape())
    return emitOpError("index must have the input's shape without its last "
                       "dimension");
  if (out.getShape() != index.getShape() ||
      out.getElementType() != in.getElementType())
    return emitOpError("result must have the index's shape and the input's "
                       "element type");
  return success();
}

LogicalResult BroadcastOp::verify() {
  RankedTensorType in = getInput().getType();
  RankedTensorType out = getResult().getType();
  if (failed(verifyStaticShapes(*this)))
    return failure();
  if (in.getRank() != out.getRank() ||
      in.getElementType() != out.getElementType())
    return emitOpError("result must have the input's rank and element type");
  for (auto [i, sizes] :
       llvm::enumerate(llvm::zip_equal(in.getShape(), out.getShape()))) {
    auto [from, to] = sizes;
    if (from != to && from != 1)
      return emitOpError() << "dimension " << i << " of size " << from
                           << " cannot broadcast to " << to;
  }
  return success();
}

LogicalResult ReshapeOp::verify() {
  RankedTensorType in = getInput().getType();
  RankedTensorType out = getResult().getType();
  if (failed(verifyStaticShapes(*this)))
    return failure();
  if (in.getElementType() != out.getElementType())
    return emitOpError("element type must not change");
  if (in.getNumElements() != out.getNumElements())
    return emitOpError() << "element count must not change (" << in << " has "
                         << in.getNumElements() << ", " << out << " has "
                         << out.getNumElements() << ")";
  return success();
}

LogicalResult TransposeOp::verify() {
  RankedTensorType in = getInput().getType();
  RankedTensorType out = getResult().getType();
  ArrayRef<int64_t> perm = getPermutation();
  if (static_cast<int64_t>(perm.size()) != in.getRank())
    return emitOpError("permutation must have one entry per dimension");
  SmallVector<bool> seen(perm.size(), false);
  SmallVector<int64_t> expected;
  for (int64_t p : perm) {
    if (p < 0 || p >= in.getRank() || seen[p])
      return emitOpError("permutation must be a permutation of 0..rank-1");
    seen[p] = true;
    expected.push_back(in.getDimSize(p));
  }
  if (ArrayRef<int64_t>(expected) != out.getShape() ||
      in.getElementType() != out.getElementType())
    return emitOpError("result shape must be the permuted input shape");
  return success();
}

LogicalResult SliceOp::verify() {
  RankedTensorType in = getInput().getType();
  RankedTensorType out = getResult().getType();
  ArrayRef<int64_t> offsets = getOffsets();
  if (failed(verifyStaticShapes(*this)))
    return failure();
  if (static_cast<int64_t>(offsets.size()) != in.getRank() ||
      out.getRank() != in.getRank())
    return emitOpError("offsets and result must have the input's rank");
  if (in.getElementType() != out.getElementType())
    return emitOpError("element type must not change");
  // `offset + size > dim` written so that a huge offset cannot overflow.
  for (int64_t i = 0; i < in.getRank(); ++i)
    if (offsets[i] < 0 || out.getDimSize(i) > in.getDimSize(i) ||
        offsets[i] > in.getDimSize(i) - out.getDimSize(i))
      return emitOpError() << "slice of size " << out.getDimSize(i)
                           << " at offset " << offsets[i]
                           << " is out of bounds of dimension " << i
                           << " (size " << in.getDimSize(i) << ")";
  return success();
}

LogicalResult ConcatOp::verify() {
  if (getInputs().empty())
    return emitOpError("needs at least one input");
  if (failed(verifyStaticShapes(*this)))
    return failure();
  RankedTensorType out = getResult().getType();
  int64_t dim = getDim();
  if (dim < 0 || dim >= out.getRank())
    return emitOpError() << "dim " << dim << " is out of range";
  int64_t total = 0;
  for (Value v : getInputs()) {
    auto t = cast<RankedTensorType>(v.getType());
    if (t.getRank() != out.getRank() ||
        t.getElementType() != out.getElementType())
      return emitOpError("inputs must have the result's rank and element type");
    for (int64_t i = 0; i < t.getRank(); ++i)
      if (i != dim && t.getDimSize(i) != out.getDimSize(i))
        return emitOpError()
               << "inputs differ from the result in dimension " << i;
    total += t.getDimSize(dim);
  }
  if (total != out.getDimSize(dim))
    return emitOpError() << "result dimension " << dim << " must be " << total;
  return success();
}

LogicalResult SplitOp::verify() {
  RankedTensorType in = getInput().getType();
  int64_t dim = getDim();
  int64_t n = getResults().size();
  if (n == 0)
    return emitOpError("needs at least one result");
  if (failed(verifyStaticShapes(*this)))
    return failure();
  if (dim < 0 || dim >= in.getRank())
    return emitOpError() << "dim " << dim << " is out of range";
  if (in.getDimSize(dim) % n != 0)
    return emitOpError() << "dimension " << dim << " (size "
                         << in.getDimSize(dim) << ") does not split into " << n
                         << " equal parts";
  SmallVector<int64_t> part(in.getShape());
  part[dim] /= n;
  auto expected = RankedTensorType::get(part, in.getElementType());
  for (Value r : getResults())
    if (r.getType() != expected)
      return emitOpError() << "every result must be " << expected;
  return success();
}

//===----------------------------------------------------------------------===//
// Folders
//===----------------------------------------------------------------------===//

OpFoldResult ReshapeOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  if (auto inner = getInput().getDefiningOp<ReshapeOp>()) {
    if (inner.getInput().getType() == getType())
      return inner.getInput();
    getInputMutable().assign(inner.getInput());
    return getResult();
  }
  return {};
}

OpFoldResult TransposeOp::fold(FoldAdaptor) {
  auto isIdentity = [](ArrayRef<int64_t> perm) {
    for (auto [i, p] : llvm::enumerate(perm))
      if (p != static_cast<int64_t>(i))
        return false;
    return true;
  };
  if (isIdentity(getPermutation()))
    return getInput();
  auto inner = getInput().getDefiningOp<TransposeOp>();
  if (!inner)
    return {};
  // result[i] = this.input[perm[i]] = inner.input[innerPerm[perm[i]]].
  SmallVector<int64_t> composed;
  for (int64_t p : getPermutation())
    composed.push_back(inner.getPermutation()[p]);
  if (isIdentity(composed))
    return inner.getInput();
  getInputMutable().assign(inner.getInput());
  setPermutation(composed);
  return getResult();
}
