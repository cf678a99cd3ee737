//===- GraphBuilder.cpp - Building blocks of the gpt forward graph --------===//

#include "dialects/GPT/GraphBuilder.h"

#include "mlir/IR/BuiltinAttributes.h"

#include <limits>

using namespace mlir;
using namespace mlir::gpt;

namespace gptc {

Value GraphBuilder::add(Value a, Value c) {
  return AddOp::create(b, *loc, a, c);
}
Value GraphBuilder::sub(Value a, Value c) {
  return SubOp::create(b, *loc, a, c);
}
Value GraphBuilder::mul(Value a, Value c) {
  return MulOp::create(b, *loc, a, c);
}
Value GraphBuilder::div(Value a, Value c) {
  return DivOp::create(b, *loc, a, c);
}
Value GraphBuilder::scale(Value x, double s) {
  return MulScalarOp::create(b, *loc, x, b.getF64FloatAttr(s));
}
Value GraphBuilder::shift(Value x, double s) {
  return AddScalarOp::create(b, *loc, x, b.getF64FloatAttr(s));
}

Value GraphBuilder::compare(CompareKind kind, Value a, Value c) {
  auto type = RankedTensorType::get(typeOf(a).getShape(), b.getI1Type());
  return CompareOp::create(b, *loc, type, kind, a, c);
}

Value GraphBuilder::logicalAnd(Value a, Value c) {
  Value no = splat(typeOf(a).getShape(), b.getI1Type(), 0.0);
  return SelectOp::create(b, *loc, a, c, no);
}

Value GraphBuilder::cast(Value x, Type elt) {
  RankedTensorType t = typeOf(x);
  if (t.getElementType() == elt)
    return x;
  return CastOp::create(b, *loc, RankedTensorType::get(t.getShape(), elt), x);
}

Value GraphBuilder::splat(ArrayRef<int64_t> shape, Type elt, double v) {
  auto type = RankedTensorType::get(shape, elt);
  TypedAttr scalar;
  if (auto ft = dyn_cast<FloatType>(elt))
    scalar = b.getFloatAttr(ft, v);
  else
    scalar = b.getIntegerAttr(elt, static_cast<int64_t>(v));
  return ConstantOp::create(b, *loc, DenseElementsAttr::get(type, scalar));
}

Value GraphBuilder::constantVector(ArrayRef<float> values) {
  auto type =
      RankedTensorType::get({static_cast<int64_t>(values.size())}, compute);
  SmallVector<Attribute> attrs;
  for (float v : values)
    attrs.push_back(b.getFloatAttr(compute, v));
  return ConstantOp::create(b, *loc, DenseElementsAttr::get(type, attrs));
}

Value GraphBuilder::iota(ArrayRef<int64_t> shape, int64_t dim, Type elt) {
  return IotaOp::create(b, *loc, RankedTensorType::get(shape, elt), dim);
}

Value GraphBuilder::broadcastTo(Value x, ArrayRef<int64_t> shape) {
  RankedTensorType t = typeOf(x);
  if (t.getShape() == shape)
    return x;
  return BroadcastOp::create(
      b, *loc, RankedTensorType::get(shape, t.getElementType()), x);
}

Value GraphBuilder::reshape(Value x, ArrayRef<int64_t> shape) {
  RankedTensorType t = typeOf(x);
  if (t.getShape() == shape)
    return x;
  return ReshapeOp::create(b, *loc,
                           RankedTensorType::get(shape, t.getElementType()), x);
}

Value GraphBuilder::transpose(Value x, ArrayRef<int64_t> perm) {
  RankedTensorType t = typeOf(x);
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(t.getDimSize(p));
  return TransposeOp::create(b, *loc,
                             RankedTensorType::get(shape, t.getElementType()),
                             x, b.getDenseI64ArrayAttr(perm));
}

Value GraphBuilder::slice(Value x, ArrayRef<int64_t> offsets,
                          ArrayRef<int64_t> sizes) {
  RankedTensorType t = typeOf(x);
  return SliceOp::create(b, *loc,
                         RankedTensorType::get(sizes, t.getElementType()), x,
                         b.getDenseI64ArrayAttr(offsets));
}

Value GraphBuilder::concat(ValueRange xs, int64_t dim) {
  RankedTensorType t = typeOf(xs.front());
  SmallVector<int64_t> shape(t.getShape());
  shape[dim] = 0;
  for (Value x : xs)
    shape[dim] += typeOf(x).getDimSize(dim);
  return ConcatOp::create(
      b, *loc, RankedTensorType::get(shape, t.getElementType()), xs, dim);
}

SmallVector<Value> GraphBuilder::split(Value x, int64_t dim, int64_t n) {
  RankedTensorType t = typeOf(x);
  SmallVector<int64_t> shape(t.getShape());
  shape[dim] /= n;
  SmallVector<Type> types(n, RankedTensorType::get(shape, t.getElementType()));
  auto op = SplitOp::create(b, *loc, types, x, dim);
  return SmallVector<Value>(op.getResults());
}

Value GraphBuilder::scalarOf(Value vec, int64_t i, int64_t rank) {
  Value s = slice(vec, {i}, {1});
  return reshape(s, SmallVector<int64_t>(rank, 1));
}

Value GraphBuilder::mulByScalar(Value x, Value s) {
  return mul(x, broadcastTo(s, typeOf(x).getShape()));
}

Value GraphBuilder::reduce(ReduceKind kind, Value x, ArrayRef<int64_t> dims) {
  RankedTensorType t = typeOf(x);
  SmallVector<int64_t> shape(t.getShape());
  for (int64_t d : dims)
    shape[d] = 1;
  return ReduceOp::create(b, *loc,
                          RankedTensorType::get(shape, t.getElementType()),
                          kind, x, b.getDenseI64ArrayAttr(dims));
}

Value GraphBuilder::matmul(Value a, Value c, bool transposeA, bool transposeC) {
  Value lhs = cast(a, matmulType), rhs = cast(c, matmulType);
  RankedTensorType ta = typeOf(lhs), tc = typeOf(rhs);
  int64_t ra = ta.getRank(), rc = tc.getRank();
  SmallVector<int64_t> shape(ta.getShape().drop_back(2));
  shape.push_back(ta.getDimSize(transposeA ? ra - 1 : ra - 2));
  shape.push_back(tc.getDimSize(transposeC ? rc - 2 : rc - 1));
  Value r = MatmulOp::create(b, *loc, RankedTensorType::get(shape, matmulType),
                             lhs, rhs, transposeA, transposeC);
  return cast(r, typeOf(a).getElementType());
}

Value GraphBuilder::matmulAdd(Value a, Value c, bool transposeA,
                              bool transposeC, double alpha, Value addend,
                              double beta) {
  Value lhs = cast(a, matmulType), rhs = cast(c, matmulType);
  Value acc = cast(addend, matmulType);
  Value r = MatmulAddOp::create(b, *loc, acc.getType(), lhs, rhs, acc,
                                transposeA, transposeC, llvm::APFloat(alpha),
                                llvm::APFloat(beta));
  return cast(r, typeOf(a).getElementType());
}

Value GraphBuilder::linear(Value x, Value weight) {
  return matmul(x, weight, /*transposeA=*/false, /*transposeC=*/true);
}

Value GraphBuilder::rmsNorm(Value x, double eps) {
  RankedTensorType t = typeOf(x);
  int64_t last = t.getRank() - 1;
  Value sq = SquareOp::create(b, *loc, x);
  Value meanSq = reduce(ReduceKind::mean, sq, {last});
  Value inv = RsqrtOp::create(b, *loc, shift(meanSq, eps));
  return mul(x, broadcastTo(inv, t.getShape()));
}

Value GraphBuilder::softmax(Value x) {
  RankedTensorType t = typeOf(x);
  int64_t last = t.getRank() - 1;
  Value mx = broadcastTo(reduce(ReduceKind::max, x, {last}), t.getShape());
  Value e = ExpOp::create(b, *loc, sub(x, mx));
  Value z = broadcastTo(reduce(ReduceKind::sum, e, {last}), t.getShape());
  return div(e, z);
}

Value GraphBuilder::crossEntropy(Value logits, Value targets) {
  RankedTensorType t = typeOf(logits);
  int64_t last = t.getRank() - 1;
  ArrayRef<int64_t> posShape = t.getShape().drop_back();
  Value mx = reduce(ReduceKind::max, logits, {last});
  Value shifted = sub(logits, broadcastTo(mx, t.getShape()));
  Value sumExp =
      reduce(ReduceKind::sum, ExpOp::create(b, *loc, shifted), {last});
  Value lse = add(LogOp::create(b, *loc, sumExp), mx);
  lse = reshape(lse, posShape);
  Value target = GatherLastOp::create(
      b, *loc, RankedTensorType::get(posShape, t.getElementType()), logits,
      targets);
  Value nll = sub(lse, target);
  SmallVector<int64_t> all;
  for (int64_t i = 0; i < static_cast<int64_t>(posShape.size()); ++i)
    all.push_back(i);
  Value mean = reduce(ReduceKind::mean, nll, all);
  return reshape(mean, {});
}

} // namespace gptc
