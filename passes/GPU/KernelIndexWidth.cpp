//===- KernelIndexWidth.cpp - The gptc-kernel-index-width pass ------------===//
//
// gpu.module @k {                       gpu.module @k attributes {dlti.dl_spec
//   gpu.func @f(%a: memref<64x768xf32>)   = #dlti.dl_spec<index = 32 : i64>} {
//       kernel attributes {known_..}  =>  ...
//
// A kernel whose every value of type index provably fits in 31 bits gets a
// 32-bit index type for its lowering (gptc-nvgpu-to-nvvm and
// convert-gpu-to-nvvm derive it from the module's data layout): address
// arithmetic in 32-bit integers, one IMAD.WIDE per address in SASS instead
// of 64-bit chains. See the pass description in passes/GPU/GPUPasses.td.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Analysis/DataFlow/IntegerRangeAnalysis.h"
#include "mlir/Analysis/DataFlow/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/DLTI/DLTI.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace gptc {
#define GEN_PASS_DEF_KERNELINDEXWIDTHPASS
#include "passes/Passes.h.inc"
} // namespace gptc

using namespace mlir;

namespace {

/// Every index value of a narrowed kernel stays below 2^30: the sum of two
/// of them (a loop variable plus its step, an offset plus an extent) still
/// fits in a signed 32-bit integer.
constexpr int64_t kIndexLimit = int64_t(1) << 30;

/// Why a module keeps 64-bit indices (the first reason found), or empty.
class Eligibility {
public:
  std::string reason;

  void check(gpu::GPUModuleOp module) {
    module.walk([&](Operation *op) {
      checkOp(op);
      return reason.empty() ? WalkResult::advance() : WalkResult::interrupt();
    });
    if (reason.empty())
      checkRanges(module);
  }

private:
  /// What integer range analysis proves of each index computed from the
  /// launch's ids, constants and loop variables alone must be below
  /// kIndexLimit in magnitude: a block's id times a large stride, say. An
  /// index that depends on memory (a load, a cast of a loaded integer) or
  /// on a loop-carried value gets the range of its type from the analysis,
  /// no proof: the structural conditions bound the addresses formed from
  /// it.
  void checkRanges(gpu::GPUModuleOp module) {
    DataFlowSolver solver;
    dataflow::loadBaselineAnalyses(solver);
    solver.load<dataflow::IntegerRangeAnalysis>();
    if (failed(solver.initializeAndRun(module))) {
      reason = "integer range analysis failed";
      return;
    }
    llvm::DenseSet<Value> fromData;
    auto usesData = [&](Operation *op) {
      return llvm::any_of(op->getOperands(),
                          [&](Value v) { return fromData.contains(v); });
    };
    auto dependsOnData = [&](Operation *op) {
      // A region's results are loop-carried or joined: no proof either.
      return isa<memref::LoadOp, arith::IndexCastOp, arith::IndexCastUIOp>(
                 op) ||
             op->getNumRegions() != 0 || usesData(op);
    };
    module.walk<WalkOrder::PreOrder>([&](Operation *op) {
      // Loop-carried values and loop variables of data-dependent bounds.
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments()) {
            auto loop = dyn_cast<scf::ForOp>(op);
            if (!loop || arg != loop.getInductionVar() || usesData(loop))
              fromData.insert(arg);
          }
      if (dependsOnData(op)) {
        fromData.insert(op->result_begin(), op->result_end());
        return WalkResult::advance();
      }
      for (Value v : op->getResults()) {
        if (!isa<IndexType>(v.getType()))
          continue;
        auto *lattice =
            solver.lookupState<dataflow::IntegerValueRangeLattice>(v);
        if (!lattice || lattice->getValue().isUninitialized())
          continue;
        const ConstantIntRanges &range = lattice->getValue().getValue();
        int64_t lo = range.smin().getSExtValue();
        int64_t hi = range.smax().getSExtValue();
        if (lo <= -kIndexLimit || hi >= kIndexLimit) {
          fail(op, "a value in [" + Twine(lo) + ", " + Twine(hi) + "]");
          return WalkResult::interrupt();
        }
      }
      return WalkResult::advance();
    });
  }

  void fail(Operation *op, const Twine &why) {
    reason = (op->getName().getStringRef() + ": " + why).str();
  }

  void checkOp(Operation *op) {
    if (auto func = dyn_cast<gpu::GPUFuncOp>(op))
      return checkFunction(func);
    if (auto constant = dyn_cast<arith::ConstantIndexOp>(op)) {
      int64_t v = constant.value();
      if (v >= kIndexLimit || v <= -kIndexLimit)
        fail(op, "constant " + Twine(v) + " needs 64 bits");
      return;
    }
    if (isa<arith::IndexCastOp, arith::IndexCastUIOp>(op)) {
      Type from = op->getOperand(0).getType();
      if (from.isInteger() && from.getIntOrFloatBitWidth() > 32)
        fail(op, "a cast from a " + Twine(from.getIntOrFloatBitWidth()) +
                     "-bit value");
      return;
    }
    for (Type t : op->getResultTypes())
      if (!checkType(op, t))
        return;
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          if (!checkType(op, arg.getType()))
            return;
  }

  void checkFunction(gpu::GPUFuncOp func) {
    // The host passes index arguments as 64-bit integers.
    for (Type t : func.getArgumentTypes()) {
      if (isa<IndexType>(t))
        return fail(func, "an index argument");
      if (!checkType(func, t))
        return;
    }
    std::optional<ArrayRef<int32_t>> block = func.getKnownBlockSize();
    std::optional<ArrayRef<int32_t>> grid = func.getKnownGridSize();
    if (!block || !grid)
      return fail(func, "no known grid and block size");
    for (int d = 0; d < 3; ++d)
      if (int64_t((*block)[d]) * (*grid)[d] >= kIndexLimit)
        return fail(func, "more than 2^30 threads along a dimension");
  }

  /// Memory of a global or private memref: its farthest element below
  /// kIndexLimit, and no element of type index (its size is the host's).
  bool checkType(Operation *op, Type type) {
    auto memref = dyn_cast<MemRefType>(type);
    if (!memref)
      return true;
    if (isa<IndexType>(memref.getElementType())) {
      fail(op, "a memref of index elements");
      return false;
    }
    // Shared memory spans at most 228 KiB, whatever its type says.
    if (auto space =
            dyn_cast_or_null<gpu::AddressSpaceAttr>(memref.getMemorySpace()))
      if (space.getValue() == gpu::AddressSpace::Workgroup)
        return true;
    SmallVector<int64_t> strides;
    int64_t offset;
    if (!memref.hasStaticShape() ||
        failed(memref.getStridesAndOffset(strides, offset)) ||
        ShapedType::isDynamic(offset) ||
        llvm::any_of(strides, ShapedType::isDynamic)) {
      fail(op, "a memref of dynamic shape or layout");
      return false;
    }
    int64_t last = offset;
    for (auto [size, stride] : llvm::zip(memref.getShape(), strides)) {
      if (size == 0)
        return true;
      last += (size - 1) * std::abs(stride);
    }
    if (last >= kIndexLimit) {
      fail(op, "a memref of " + Twine(last + 1) + " elements");
      return false;
    }
    return true;
  }
};

struct KernelIndexWidthPass
    : gptc::impl::KernelIndexWidthPassBase<KernelIndexWidthPass> {
  using KernelIndexWidthPassBase::KernelIndexWidthPassBase;

  void runOnOperation() override {
    gpu::GPUModuleOp module = getOperation();
    if (module->hasAttr(DLTIDialect::kDataLayoutAttrName))
      return;
    Eligibility eligibility;
    eligibility.check(module);
    if (!eligibility.reason.empty()) {
      if (explain)
        module.emitRemark() << "64-bit indices in @" << module.getName() << ": "
                            << eligibility.reason;
      return;
    }
    MLIRContext *ctx = &getContext();
    auto entry = DataLayoutEntryAttr::get(
        IndexType::get(ctx), IntegerAttr::get(IntegerType::get(ctx, 64), 32));
    module->setAttr(DLTIDialect::kDataLayoutAttrName,
                    DataLayoutSpecAttr::get(ctx, {entry}));
  }
};

} // namespace
