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

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/DLTI/DLTI.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

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
  }

private:
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
