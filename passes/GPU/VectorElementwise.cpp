//===- VectorElementwise.cpp - The gptc-vector-elementwise pass -----------===//
//
// scf.parallel (%i, %j) = (0, 0) to (512, 768) step (1, 1) {
//   %x = memref.load %a[%i, %j] : memref<512x768xbf16>
//   %s = memref.load %scale[%i] : memref<512xf32>
//   %y = arith.mulf (arith.extf %x), %s
//   memref.store %y, %b[%i, %j] : memref<512x768xf32>
// }
//   =>   (the widest element 4 bytes: 4 elements a work item)
// scf.parallel (%i, %j) = (0, 0) to (512, 768) step (1, 4) {
//   %xv = vector.load %a[%i, %j] {alignment = 8} : vector<4xbf16>
//   %s = memref.load %scale[%i]                      // once
//   %y0 = arith.mulf (arith.extf (vector.extract %xv[0])), %s
//   ... %y1, %y2, %y3
//   vector.store (vector.from_elements %y0, .., %y3), %b[%i, %j]
//     {alignment = 16} : vector<4xf32>
// }
//
// See the pass description in passes/GPU/GPUPasses.td.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define DEBUG_TYPE "gptc-vector-elementwise"

namespace gptc {
#define GEN_PASS_DEF_VECTORELEMENTWISEPASS
#include "passes/Passes.h.inc"
} // namespace gptc

using namespace mlir;

namespace {

/// The widest access a thread makes: 16 bytes (ld.global.v4.b32).
constexpr int64_t kVectorBytes = 16;

int64_t elementBytes(MemRefType type) {
  return type.getElementType().getIntOrFloatBitWidth() / 8;
}

/// Whether every element `index` of `memref` that is a multiple of
/// `elements` starts at a multiple of `bytes` from an allocation's start:
/// the layout's static offset and outer strides are multiples of the
/// vector, and every memref.view on the way back to the arena (a function
/// argument or an allocation, aligned to 64 bytes by the buffer plan)
/// shifts by a constant multiple of `bytes`.
bool aligned(Value memref, int64_t elements, int64_t bytes) {
  auto type = cast<MemRefType>(memref.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) || strides.empty() ||
      strides.back() != 1 || ShapedType::isDynamic(offset) ||
      offset % elements != 0)
    return false;
  for (int64_t s : ArrayRef(strides).drop_back())
    if (ShapedType::isDynamic(s) || s % elements != 0)
      return false;
  for (Value v = memref;;) {
    if (isa<BlockArgument>(v))
      return true;
    Operation *def = v.getDefiningOp();
    if (isa<memref::AllocOp, memref::AllocaOp>(def))
      return true;
    if (auto view = dyn_cast<memref::ViewOp>(def)) {
      std::optional<int64_t> shift = getConstantIntValue(view.getByteShift());
      if (!shift || *shift % bytes != 0)
        return false;
      v = view.getSource();
      continue;
    }
    if (isa<memref::SubViewOp, memref::CollapseShapeOp, memref::ExpandShapeOp,
            memref::ReinterpretCastOp, memref::CastOp>(def)) {
      // Their static offsets are in the result's layout (checked above for
      // the accessed memref, and again on the way back).
      auto t = cast<MemRefType>(def->getOperand(0).getType());
      SmallVector<int64_t> s;
      int64_t o;
      if (failed(t.getStridesAndOffset(s, o)) || ShapedType::isDynamic(o) ||
          (o * elementBytes(t)) % bytes != 0)
        return false;
      v = def->getOperand(0);
      continue;
    }
    return false;
  }
}

/// What the pass knows of one nest: the ops that vary with the innermost
/// index, and how many elements a thread takes.
struct Plan {
  llvm::DenseSet<Operation *> varying;
  int64_t width = 0;
};

/// The access at the last index `j` of a contiguous row, other indices
/// the same along the row.
bool alongRow(ValueRange indices, Value j,
              const llvm::DenseSet<Value> &varyingValues) {
  if (indices.empty() || indices.back() != j)
    return false;
  for (Value i : indices.drop_back())
    if (varyingValues.contains(i) || i == j)
      return false;
  return true;
}

std::optional<Plan> planOf(scf::ParallelOp nest) {
  if (nest.getNumResults() != 0 || nest.getNumLoops() == 0)
    return std::nullopt;
  unsigned d = nest.getNumLoops() - 1;
  std::optional<int64_t> lb = getConstantIntValue(nest.getLowerBound()[d]),
                         ub = getConstantIntValue(nest.getUpperBound()[d]),
                         step = getConstantIntValue(nest.getStep()[d]);
  if (!lb || !ub || !step || *lb != 0 || *step != 1)
    return std::nullopt;
  for (Value v : llvm::concat<Value>(nest.getLowerBound(), nest.getUpperBound(),
                                     nest.getStep()))
    if (!getConstantIntValue(v))
      return std::nullopt;
  Value j = nest.getInductionVars()[d];
  Plan plan;
  llvm::DenseSet<Value> varyingValues{j};
  int64_t widest = 0;
  SmallVector<std::pair<Value, int64_t>> accesses; // memref, element bytes
  for (Operation &op : nest.getBody()->without_terminator()) {
    if (op.getNumRegions() != 0)
      return std::nullopt;
    bool varies = llvm::any_of(
        op.getOperands(), [&](Value v) { return varyingValues.contains(v); });
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      if (!varies)
        continue;
      if (!alongRow(load.getIndices(), j, varyingValues))
        return std::nullopt;
      accesses.push_back(
          {load.getMemRef(), elementBytes(load.getMemRefType())});
    } else if (auto store = dyn_cast<memref::StoreOp>(op)) {
      if (!alongRow(store.getIndices(), j, varyingValues))
        return std::nullopt;
      accesses.push_back(
          {store.getMemRef(), elementBytes(store.getMemRefType())});
    } else if (!varies) {
      if (!isMemoryEffectFree(&op))
        return std::nullopt;
      continue;
    } else if (!isMemoryEffectFree(&op) ||
               llvm::any_of(op.getResultTypes(),
                            [](Type t) { return !t.isIntOrFloat(); })) {
      return std::nullopt;
    }
    plan.varying.insert(&op);
    for (Value r : op.getResults())
      varyingValues.insert(r);
  }
  // j only as the last index of the row accesses.
  for (OpOperand &use : j.getUses())
    if (!isa<memref::LoadOp, memref::StoreOp>(use.getOwner()))
      return std::nullopt;
  for (auto [memref, bytes] : accesses) {
    if (!cast<MemRefType>(memref.getType()).getElementType().isIntOrFloat() ||
        bytes == 0)
      return std::nullopt;
    widest = std::max(widest, bytes);
  }
  if (accesses.empty())
    return std::nullopt;
  for (int64_t width = kVectorBytes / widest; width >= 2; width /= 2) {
    if (*ub % width != 0)
      continue;
    if (llvm::all_of(accesses, [&](auto access) {
          return aligned(access.first, width, width * access.second);
        })) {
      plan.width = width;
      return plan;
    }
  }
  return std::nullopt;
}

void vectorize(scf::ParallelOp nest, const Plan &plan, OpBuilder &b) {
  Location loc = nest.getLoc();
  const int64_t width = plan.width;
  unsigned d = nest.getNumLoops() - 1;
  b.setInsertionPoint(nest);
  SmallVector<Value> steps(nest.getStep());
  steps[d] = arith::ConstantIndexOp::create(b, loc, width);
  auto wide = scf::ParallelOp::create(b, loc, nest.getLowerBound(),
                                      nest.getUpperBound(), steps);
  b.setInsertionPointToStart(wide.getBody());
  SmallVector<IRMapping> lanes(width);
  for (IRMapping &map : lanes)
    for (auto [from, to] :
         llvm::zip(nest.getInductionVars(), wide.getInductionVars()))
      map.map(from, to);
  auto indicesOf = [&](ValueRange indices) {
    SmallVector<Value> at;
    for (Value i : indices)
      at.push_back(lanes[0].lookupOrDefault(i));
    return at;
  };
  for (Operation &op : nest.getBody()->without_terminator()) {
    if (!plan.varying.contains(&op)) {
      Operation *once = b.clone(op, lanes[0]);
      for (IRMapping &map : llvm::drop_begin(lanes))
        map.map(op.getResults(), once->getResults());
      continue;
    }
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      auto type = VectorType::get({width}, load.getType());
      int64_t bytes = width * elementBytes(load.getMemRefType());
      Value v = vector::LoadOp::create(
          b, loc, type, lanes[0].lookupOrDefault(load.getMemRef()),
          indicesOf(load.getIndices()), /*nontemporal=*/false,
          llvm::MaybeAlign(bytes));
      for (auto [e, map] : llvm::enumerate(lanes))
        map.map(load.getResult(),
                vector::ExtractOp::create(b, loc, v, int64_t(e)).getResult());
      continue;
    }
    if (auto store = dyn_cast<memref::StoreOp>(op)) {
      SmallVector<Value> values;
      for (IRMapping &map : lanes)
        values.push_back(map.lookupOrDefault(store.getValueToStore()));
      auto type = VectorType::get({width}, values.front().getType());
      Value v = vector::FromElementsOp::create(b, loc, type, values);
      int64_t bytes = width * elementBytes(store.getMemRefType());
      vector::StoreOp::create(b, loc, v,
                              lanes[0].lookupOrDefault(store.getMemRef()),
                              indicesOf(store.getIndices()),
                              /*nontemporal=*/false, llvm::MaybeAlign(bytes));
      continue;
    }
    for (IRMapping &map : lanes)
      b.clone(op, map);
  }
  nest.erase();
}

struct VectorElementwisePass
    : gptc::impl::VectorElementwisePassBase<VectorElementwisePass> {
  void runOnOperation() override {
    SmallVector<std::pair<scf::ParallelOp, Plan>> work;
    getOperation().walk<WalkOrder::PreOrder>([&](scf::ParallelOp nest) {
      if (std::optional<Plan> plan = planOf(nest))
        work.push_back({nest, std::move(*plan)});
      return WalkResult::skip();
    });
    OpBuilder b(&getContext());
    for (auto &[nest, plan] : work)
      vectorize(nest, plan, b);
  }
};

} // namespace
