//===- GPTVJPUtils.cpp - Builders shared by the gpt VJPs ------------------===//

#include "dialects/GPT/GPTVJPUtils.h"

namespace mlir::gpt::vjp {

Value zerosLike(OpBuilder &b, Location loc, Type type) {
  auto t = cast<RankedTensorType>(type);
  return ConstantOp::create(b, loc, cast<ElementsAttr>(b.getZeroAttr(t)));
}

Value scale(OpBuilder &b, Location loc, Value x, double c) {
  return MulScalarOp::create(b, loc, x, b.getF64FloatAttr(c));
}

Value shift(OpBuilder &b, Location loc, Value x, double c) {
  return AddScalarOp::create(b, loc, x, b.getF64FloatAttr(c));
}

Value compare(OpBuilder &b, Location loc, CompareKind kind, Value lhs,
              Value rhs) {
  auto t = cast<RankedTensorType>(lhs.getType());
  auto type = RankedTensorType::get(t.getShape(), b.getI1Type());
  return CompareOp::create(b, loc, type, kind, lhs, rhs);
}

Value matmul(OpBuilder &b, Location loc, Value lhs, Value rhs, bool ta,
             bool tb) {
  auto lt = cast<RankedTensorType>(lhs.getType());
  auto rt = cast<RankedTensorType>(rhs.getType());
  int64_t lr = lt.getRank(), rr = rt.getRank();
  SmallVector<int64_t> shape(lt.getShape().drop_back(2));
  shape.push_back(lt.getDimSize(ta ? lr - 1 : lr - 2));
  shape.push_back(rt.getDimSize(tb ? rr - 2 : rr - 1));
  auto type = RankedTensorType::get(shape, lt.getElementType());
  return MatmulOp::create(b, loc, type, lhs, rhs, ta, tb);
}

Value reshape(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> shape) {
  auto t = cast<RankedTensorType>(x.getType());
  if (t.getShape() == shape)
    return x;
  return ReshapeOp::create(b, loc,
                           RankedTensorType::get(shape, t.getElementType()), x);
}

} // namespace mlir::gpt::vjp
