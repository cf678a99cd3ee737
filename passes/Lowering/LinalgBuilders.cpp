//===- LinalgBuilders.cpp - Helpers for lowering gpt to linalg ------------===//

#include "passes/Lowering/LinalgBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace gptc::lowering {

Value emptyLike(OpBuilder &b, Location loc, RankedTensorType type) {
  return tensor::EmptyOp::create(b, loc, type.getShape(),
                                 type.getElementType());
}

Value scalarConstant(OpBuilder &b, Location loc, Type t, double value) {
  if (auto ft = dyn_cast<FloatType>(t))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(ft, value));
  return arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(t, static_cast<int64_t>(value)));
}

Value filled(OpBuilder &b, Location loc, RankedTensorType type, double value) {
  Value init = emptyLike(b, loc, type);
  Value v = scalarConstant(b, loc, type.getElementType(), value);
  return linalg::FillOp::create(b, loc, v, init).getResult(0);
}

Value parallelGeneric(
    OpBuilder &b, Location loc, RankedTensorType resultType, ValueRange inputs,
    ArrayRef<AffineMap> inputMaps,
    function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  int64_t rank = resultType.getRank();
  AffineMap identity = b.getMultiDimIdentityMap(rank);
  SmallVector<AffineMap> maps;
  for (size_t i = 0; i < inputs.size(); ++i)
    maps.push_back(inputMaps.empty() ? identity : inputMaps[i]);
  maps.push_back(identity);
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  Value init = emptyLike(b, loc, resultType);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, inputs, ValueRange{init}, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value r = body(nb, nloc, args.drop_back());
        linalg::YieldOp::create(nb, nloc, r);
      });
  return generic.getResult(0);
}

Value reshapeTensor(OpBuilder &b, Location loc, Value x, RankedTensorType to) {
  auto from = cast<RankedTensorType>(x.getType());
  if (from == to)
    return x;
  auto all = [](int64_t rank) {
    ReassociationIndices r;
    for (int64_t i = 0; i < rank; ++i)
      r.push_back(i);
    return SmallVector<ReassociationIndices>{r};
  };
  // Rank 0 <-> all-ones shapes use an empty reassociation.
  if (from.getRank() == 0)
    return tensor::ExpandShapeOp::create(b, loc, to, x,
                                         SmallVector<ReassociationIndices>{});
  if (to.getRank() == 0)
    return tensor::CollapseShapeOp::create(b, loc, to, x,
                                           SmallVector<ReassociationIndices>{});
  Value flat = x;
  if (from.getRank() != 1)
    flat = tensor::CollapseShapeOp::create(b, loc, x, all(from.getRank()));
  if (to.getRank() == 1)
    return flat;
  return tensor::ExpandShapeOp::create(b, loc, to, flat, all(to.getRank()));
}

} // namespace gptc::lowering
