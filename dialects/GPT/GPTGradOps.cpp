//===- GPTGradOps.cpp - Verifiers of the backward-graph gpt ops -----------===//

#include "dialects/GPT/GPTDialect.h"

using namespace mlir;
using namespace mlir::gpt;

LogicalResult EmbeddingGradOp::verify() {
  RankedTensorType grad = getGrad().getType();
  RankedTensorType ids = getIds().getType();
  RankedTensorType out = getResult().getType();
  if (out.getRank() != 2)
    return emitOpError("result must be a [vocab, dim] table");
  if (grad.getRank() != ids.getRank() + 1 ||
      grad.getShape().drop_back() != ids.getShape() ||
      grad.getShape().back() != out.getDimSize(1))
    return emitOpError("grad must be the ids' shape followed by the table "
                       "row size");
  if (grad.getElementType() != out.getElementType())
    return emitOpError("grad and result element types must match");
  return success();
}

LogicalResult ScatterLastOp::verify() {
  RankedTensorType grad = getGrad().getType();
  RankedTensorType index = getIndex().getType();
  RankedTensorType out = getResult().getType();
  if (grad.getShape() != index.getShape())
    return emitOpError("grad and index must have the same shape");
  if (out.getRank() != grad.getRank() + 1 ||
      out.getShape().drop_back() != grad.getShape() ||
      out.getElementType() != grad.getElementType())
    return emitOpError("result must be the grad's shape plus one trailing "
                       "dimension, with the grad's element type");
  return success();
}

LogicalResult PadOp::verify() {
  RankedTensorType in = getInput().getType();
  RankedTensorType out = getResult().getType();
  ArrayRef<int64_t> offsets = getOffsets();
  if (!in.hasStaticShape() || !out.hasStaticShape())
    return emitOpError("requires static shapes");
  if (static_cast<int64_t>(offsets.size()) != in.getRank() ||
      in.getRank() != out.getRank())
    return emitOpError("offsets and result must have the input's rank");
  if (in.getElementType() != out.getElementType())
    return emitOpError("element type must not change");
  for (int64_t i = 0; i < in.getRank(); ++i)
    if (offsets[i] < 0 || in.getDimSize(i) > out.getDimSize(i) ||
        offsets[i] > out.getDimSize(i) - in.getDimSize(i))
      return emitOpError() << "input does not fit in dimension " << i
                           << " at offset " << offsets[i];
  return success();
}
