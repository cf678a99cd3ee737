//===- KernelEmitter.cpp - Hand-written loop-nest kernels -----------------===//

#include "passes/Lowering/KernelEmitter.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace gptc::lowering {

Value KernelEmitter::idx(int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}
Value KernelEmitter::add(Value x, Value y) {
  return arith::AddIOp::create(b, loc, x, y);
}
Value KernelEmitter::sub(Value x, Value y) {
  return arith::SubIOp::create(b, loc, x, y);
}
Value KernelEmitter::mul(Value x, Value y) {
  return arith::MulIOp::create(b, loc, x, y);
}
Value KernelEmitter::div(Value x, Value y) {
  return arith::FloorDivSIOp::create(b, loc, x, y);
}
Value KernelEmitter::rem(Value x, Value y) {
  return arith::RemSIOp::create(b, loc, x, y);
}
Value KernelEmitter::min(Value x, Value y) {
  return arith::MinSIOp::create(b, loc, x, y);
}
Value KernelEmitter::max(Value x, Value y) {
  return arith::MaxSIOp::create(b, loc, x, y);
}
Value KernelEmitter::cmp(arith::CmpIPredicate p, Value x, Value y) {
  return arith::CmpIOp::create(b, loc, p, x, y);
}
Value KernelEmitter::both(Value x, Value y) {
  return arith::AndIOp::create(b, loc, x, y);
}
Value KernelEmitter::select(Value c, Value x, Value y) {
  return arith::SelectOp::create(b, loc, c, x, y);
}

Value KernelEmitter::fc(double v) {
  return arith::ConstantOp::create(b, loc, f, b.getFloatAttr(f, v));
}
Value KernelEmitter::fadd(Value x, Value y) {
  return arith::AddFOp::create(b, loc, x, y);
}
Value KernelEmitter::fsub(Value x, Value y) {
  return arith::SubFOp::create(b, loc, x, y);
}
Value KernelEmitter::fmul(Value x, Value y) {
  return arith::MulFOp::create(b, loc, x, y);
}
Value KernelEmitter::fdiv(Value x, Value y) {
  return arith::DivFOp::create(b, loc, x, y);
}
Value KernelEmitter::fmax(Value x, Value y) {
  return arith::MaximumFOp::create(b, loc, x, y);
}
Value KernelEmitter::faddAnyOrder(Value x, Value y) {
  return arith::AddFOp::create(b, loc, x, y, arith::FastMathFlags::reassoc);
}
Value KernelEmitter::fma(Value x, Value y, Value z) {
  return math::FmaOp::create(b, loc, x, y, z);
}
Value KernelEmitter::fcmp(arith::CmpFPredicate p, Value x, Value y) {
  return arith::CmpFOp::create(b, loc, p, x, y);
}
Value KernelEmitter::exp(Value x) { return math::ExpOp::create(b, loc, x); }
Value KernelEmitter::log(Value x) { return math::LogOp::create(b, loc, x); }
Value KernelEmitter::exp2(Value x) { return math::Exp2Op::create(b, loc, x); }
Value KernelEmitter::log2(Value x) { return math::Log2Op::create(b, loc, x); }

Value KernelEmitter::load(Value m, ValueRange at) {
  return memref::LoadOp::create(b, loc, m, at);
}
void KernelEmitter::store(Value v, Value m, ValueRange at) {
  memref::StoreOp::create(b, loc, v, m, at);
}
Value KernelEmitter::loadIndex(Value m, ValueRange at) {
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), load(m, at));
}
void KernelEmitter::storeIndex(Value v, Value m, ValueRange at) {
  Type element = cast<MemRefType>(m.getType()).getElementType();
  store(arith::IndexCastOp::create(b, loc, element, v), m, at);
}
Value KernelEmitter::tile(ArrayRef<int64_t> shape, Type elt) {
  return memref::AllocaOp::create(b, loc,
                                  MemRefType::get(shape, elt ? elt : f));
}

Value KernelEmitter::sharedTile(ArrayRef<int64_t> shape) {
  Value t = tile(shape);
  t.getDefiningOp()->setAttr(kWorkgroupTileAttr, b.getUnitAttr());
  return t;
}

Value KernelEmitter::vload(Value m, ValueRange at, int64_t lanes,
                           int64_t alignBytes) {
  return vector::LoadOp::create(
      b, loc, VectorType::get({lanes}, f), m, at, /*nontemporal=*/false,
      alignBytes ? llvm::MaybeAlign(alignBytes) : llvm::MaybeAlign());
}
void KernelEmitter::vstore(Value v, Value m, ValueRange at,
                           int64_t alignBytes) {
  vector::StoreOp::create(b, loc, v, m, at, /*nontemporal=*/false,
                          alignBytes ? llvm::MaybeAlign(alignBytes)
                                     : llvm::MaybeAlign());
}
Value KernelEmitter::splat(Value scalar, int64_t lanes) {
  return vector::BroadcastOp::create(
      b, loc, VectorType::get({lanes}, scalar.getType()), scalar);
}

Value KernelEmitter::shuffle(Value x, Value y, ArrayRef<int64_t> mask) {
  return vector::ShuffleOp::create(b, loc, x, y, mask);
}

SmallVector<Value> KernelEmitter::loop(Value lb, Value ub, Value step,
                                       ValueRange init, LoopBody body) {
  auto op = scf::ForOp::create(b, loc, lb, ub, step, init);
  OpBuilder::InsertionGuard guard(b);
  Block *block = op.getBody();
  if (!block->empty() && isa<scf::YieldOp>(block->back()))
    b.setInsertionPoint(&block->back());
  else
    b.setInsertionPointToEnd(block);
  SmallVector<Value> next = body(op.getInductionVar(), op.getRegionIterArgs());
  if (block->empty() || !isa<scf::YieldOp>(block->back()))
    scf::YieldOp::create(b, loc, next);
  return SmallVector<Value>(op.getResults());
}

void KernelEmitter::loop(Value lb, Value ub,
                         llvm::function_ref<void(Value iv)> body) {
  loop(lb, ub, idx(1), {}, [&](Value iv, ValueRange) {
    body(iv);
    return SmallVector<Value>{};
  });
}

void KernelEmitter::loop(int64_t n, llvm::function_ref<void(Value iv)> body) {
  loop(idx(0), idx(n), body);
}

void parallelKernel(OpBuilder &b, Location loc, Type f, int64_t n,
                    llvm::function_ref<void(KernelEmitter &, Value)> body) {
  Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
  Value c1 = arith::ConstantIndexOp::create(b, loc, 1);
  Value cn = arith::ConstantIndexOp::create(b, loc, n);
  scf::ParallelOp::create(b, loc, ValueRange{c0}, ValueRange{cn},
                          ValueRange{c1},
                          [&](OpBuilder &nb, Location l, ValueRange ivs) {
                            KernelEmitter e(nb, l, f);
                            body(e, ivs[0]);
                          });
}

} // namespace gptc::lowering
