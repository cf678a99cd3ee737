//===- ReferenceElementwise.cpp - Reference semantics: elementwise ops ----===//
//
// Binary and unary math, scalar ops, compare/select/cast, and the constant
// and index generators (constant, iota, cumsum). Everything is computed in
// f64; an integer-typed result is exact (integer division truncates toward
// zero like arith.divsi; overflow of the IR's bit width is not modelled).
//
//===----------------------------------------------------------------------===//

#include "reference/ReferenceModels.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/APInt.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::gpt;

namespace gptc::ref::detail {
namespace {

//===----------------------------------------------------------------------===//
// Binary
//===----------------------------------------------------------------------===//

template <typename OpT, double (*F)(double, double)>
LogicalResult evalBinary(OpT op, ArrayRef<HostTensor> in, EvalResults &out) {
  const HostTensor &a = in[0], &b = in[1];
  HostTensor r(a.shape);
  for (int64_t i = 0, e = r.size(); i < e; ++i)
    r[i] = F(a[i], b[i]);
  out.push_back(std::move(r));
  return success();
}

double addF(double a, double b) { return a + b; }
double subF(double a, double b) { return a - b; }
double mulF(double a, double b) { return a * b; }
double maxF(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<double>::quiet_NaN();
  return a >= b ? a : b;
}

/// IEEE division for floats; truncating division for integers.
LogicalResult evalDiv(DivOp op, ArrayRef<HostTensor> in, EvalResults &out) {
  const HostTensor &a = in[0], &b = in[1];
  HostTensor r(a.shape);
  bool integer = isIntegerLike(op.getType());
  for (int64_t i = 0, e = r.size(); i < e; ++i) {
    if (!integer) {
      r[i] = a[i] / b[i];
      continue;
    }
    int64_t den = asIndex(b[i]);
    if (den == 0)
      return op.emitOpError("integer division by zero at element ") << i;
    r[i] = static_cast<double>(asIndex(a[i]) / den);
  }
  out.push_back(std::move(r));
  return success();
}

//===----------------------------------------------------------------------===//
// Unary and scalar
//===----------------------------------------------------------------------===//

template <typename OpT, double (*F)(double)>
LogicalResult evalUnary(OpT op, ArrayRef<HostTensor> in, EvalResults &out) {
  HostTensor r(in[0].shape);
  for (int64_t i = 0, e = r.size(); i < e; ++i)
    r[i] = F(in[0][i]);
  out.push_back(std::move(r));
  return success();
}

double negF(double x) { return -x; }
double expF(double x) { return std::exp(x); }
double logF(double x) { return std::log(x); }
double sqrtF(double x) { return std::sqrt(x); }
double rsqrtF(double x) { return 1.0 / std::sqrt(x); }
double tanhF(double x) { return std::tanh(x); }
double sigmoidF(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double squareF(double x) { return x * x; }
double reluF(double x) { return x > 0.0 ? x : 0.0; }
/// Exact GELU: x Phi(x) = x (1 + erf(x / sqrt 2)) / 2.
double geluF(double x) { return 0.5 * x * (1.0 + std::erf(x * M_SQRT1_2)); }
double erfF(double x) { return std::erf(x); }
double cosF(double x) { return std::cos(x); }
double sinF(double x) { return std::sin(x); }

LogicalResult evalMulScalar(MulScalarOp op, ArrayRef<HostTensor> in,
                            EvalResults &out) {
  double c = op.getScalar().convertToDouble();
  HostTensor r(in[0].shape);
  for (int64_t i = 0, e = r.size(); i < e; ++i)
    r[i] = in[0][i] * c;
  out.push_back(std::move(r));
  return success();
}

LogicalResult evalAddScalar(AddScalarOp op, ArrayRef<HostTensor> in,
                            EvalResults &out) {
  double c = op.getScalar().convertToDouble();
  HostTensor r(in[0].shape);
  for (int64_t i = 0, e = r.size(); i < e; ++i)
    r[i] = in[0][i] + c;
  out.push_back(std::move(r));
  return success();
}

//===----------------------------------------------------------------------===//
// Compare, select, cast
//===----------------------------------------------------------------------===//

LogicalResult evalCompare(CompareOp op, ArrayRef<HostTensor> in,
                          EvalResults &out) {
  const HostTensor &a = in[0], &b = in[1];
  HostTensor r(a.shape);
  CompareKind kind = op.getPredicate();
  for (int64_t i = 0, e = r.size(); i < e; ++i) {
    bool v = false;
    switch (kind) {
    case CompareKind::eq:
      v = a[i] == b[i];
      break;
    case CompareKind::ne:
      v = a[i] != b[i];
      break;
    case CompareKind::lt:
      v = a[i] < b[i];
      break;
    case CompareKind::le:
      v = a[i] <= b[i];
      break;
    case CompareKind::gt:
      v = a[i] > b[i];
      break;
    case CompareKind::ge:
      v = a[i] >= b[i];
      break;
    }
    r[i] = v ? 1.0 : 0.0;
  }
  out.push_back(std::move(r));
  return success();
}

LogicalResult evalSelect(SelectOp op, ArrayRef<HostTensor> in,
                         EvalResults &out) {
  const HostTensor &c = in[0], &t = in[1], &f = in[2];
  HostTensor r(t.shape);
  for (int64_t i = 0, e = r.size(); i < e; ++i)
    r[i] = c[i] != 0.0 ? t[i] : f[i];
  out.push_back(std::move(r));
  return success();
}

/// Float results: identity (the reference does not round to bf16/f32).
/// Integer results: truncation toward zero. i1 inputs are already 0/1.
LogicalResult evalCast(CastOp op, ArrayRef<HostTensor> in, EvalResults &out) {
  HostTensor r = in[0];
  if (isIntegerLike(op.getType()))
    for (double &v : r.data)
      v = std::trunc(v);
  out.push_back(std::move(r));
  return success();
}

//===----------------------------------------------------------------------===//
// Constants and index generators
//===----------------------------------------------------------------------===//

LogicalResult evalConstant(ConstantOp op, ArrayRef<HostTensor>,
                           EvalResults &out) {
  ElementsAttr attr = op.getValue();
  HostTensor r(resultShape(op));
  Type elt = attr.getElementType();
  // Splats (the common case: zeros, -inf masks) are read once.
  if (auto dense = dyn_cast<DenseElementsAttr>(attr);
      dense && dense.isSplat()) {
    double v;
    if (isa<FloatType>(elt)) {
      v = dense.getSplatValue<APFloat>().convertToDouble();
    } else if (auto it = dyn_cast<IntegerType>(elt)) {
      APInt a = dense.getSplatValue<APInt>();
      v = it.getWidth() == 1 || it.isUnsigned()
              ? static_cast<double>(a.getZExtValue())
              : static_cast<double>(a.getSExtValue());
    } else {
      return op.emitOpError("unsupported constant element type ") << elt;
    }
    std::fill(r.data.begin(), r.data.end(), v);
    out.push_back(std::move(r));
    return success();
  }
  int64_t i = 0;
  if (isa<FloatType>(elt)) {
    auto values = attr.tryGetValues<APFloat>();
    if (!values)
      return op.emitOpError("cannot read the float elements of the constant");
    for (const APFloat &v : *values)
      r[i++] = v.convertToDouble();
  } else if (auto it = dyn_cast<IntegerType>(elt)) {
    auto values = attr.tryGetValues<APInt>();
    if (!values)
      return op.emitOpError("cannot read the integer elements of the constant");
    for (const APInt &v : *values)
      r[i++] = it.getWidth() == 1 || it.isUnsigned()
                   ? static_cast<double>(v.getZExtValue())
                   : static_cast<double>(v.getSExtValue());
  } else {
    return op.emitOpError("unsupported constant element type ") << elt;
  }
  if (i != r.size())
    return op.emitOpError("constant has ")
           << i << " elements, expected " << r.size();
  out.push_back(std::move(r));
  return success();
}

LogicalResult evalIota(IotaOp op, ArrayRef<HostTensor>, EvalResults &out) {
  HostTensor r(resultShape(op));
  int64_t dim = op.getDim();
  forEachIndex(r.shape, [&](ArrayRef<int64_t> idx, int64_t lin) {
    r[lin] = static_cast<double>(idx[dim]);
  });
  out.push_back(std::move(r));
  return success();
}

LogicalResult evalCumsum(CumsumOp op, ArrayRef<HostTensor> in,
                         EvalResults &out) {
  HostTensor r = in[0];
  int64_t dim = op.getDim();
  int64_t stride = r.strides()[dim];
  // Row-major order visits idx - e_dim before idx.
  forEachIndex(r.shape, [&](ArrayRef<int64_t> idx, int64_t lin) {
    if (idx[dim] > 0)
      r[lin] += r[lin - stride];
  });
  out.push_back(std::move(r));
  return success();
}

} // namespace

void attachElementwiseModels(MLIRContext *ctx) {
  attach<AddOp, evalBinary<AddOp, addF>>(ctx);
  attach<SubOp, evalBinary<SubOp, subF>>(ctx);
  attach<MulOp, evalBinary<MulOp, mulF>>(ctx);
  attach<DivOp, evalDiv>(ctx);
  attach<MaxOp, evalBinary<MaxOp, maxF>>(ctx);

  attach<NegOp, evalUnary<NegOp, negF>>(ctx);
  attach<ExpOp, evalUnary<ExpOp, expF>>(ctx);
  attach<LogOp, evalUnary<LogOp, logF>>(ctx);
  attach<SqrtOp, evalUnary<SqrtOp, sqrtF>>(ctx);
  attach<RsqrtOp, evalUnary<RsqrtOp, rsqrtF>>(ctx);
  attach<TanhOp, evalUnary<TanhOp, tanhF>>(ctx);
  attach<SigmoidOp, evalUnary<SigmoidOp, sigmoidF>>(ctx);
  attach<SquareOp, evalUnary<SquareOp, squareF>>(ctx);
  attach<ReluOp, evalUnary<ReluOp, reluF>>(ctx);
  attach<GeluOp, evalUnary<GeluOp, geluF>>(ctx);
  attach<ErfOp, evalUnary<ErfOp, erfF>>(ctx);
  attach<CosOp, evalUnary<CosOp, cosF>>(ctx);
  attach<SinOp, evalUnary<SinOp, sinF>>(ctx);
  attach<MulScalarOp, evalMulScalar>(ctx);
  attach<AddScalarOp, evalAddScalar>(ctx);

  attach<CompareOp, evalCompare>(ctx);
  attach<SelectOp, evalSelect>(ctx);
  attach<CastOp, evalCast>(ctx);

  attach<ConstantOp, evalConstant>(ctx);
  attach<IotaOp, evalIota>(ctx);
  attach<CumsumOp, evalCumsum>(ctx);
}

} // namespace gptc::ref::detail
