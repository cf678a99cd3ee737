//===- ArenaBufferUnits.cpp - Arena views through the runtime's table -----===//
//
// %v = memref.view %arena[%c4096][] : memref<Nxi8> to memref<64xf32>
//   =>
// %s = func.call @gptc_cuda_buffer_shift(%c4096) : (index) -> index
// %v = memref.view %arena[%s][] : memref<Nxi8> to memref<64xf32>
// memref.global constant @gptc_buffer_units = dense<[1, 4096, 4352]>
//
// A CUDA step addresses every buffer as the arena's base plus a constant
// offset, so one allocation holds them all and a write past the end of one
// buffer lands in its neighbour unseen. With every view's offset from the
// runtime, the runtime may place each buffer in an allocation of its own
// (GPTC_DEBUG_BUFFERS=1): the driver, emulated or compute-sanitizer's,
// then reports the overflow with the kernel's name. Otherwise the shift is
// the offset. The units are the union of overlapping views (a buffer and
// the slices written into it are one unit; temporaries that share bytes by
// liveness too).
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"

namespace gptc {
#define GEN_PASS_DEF_ARENABUFFERUNITSPASS
#include "passes/Passes.h.inc"
} // namespace gptc

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kShiftFunction = "gptc_cuda_buffer_shift";
constexpr llvm::StringLiteral kUnitsGlobal = "gptc_buffer_units";

/// The arena argument of a step entry point (its one memref<Nxi8>), or null.
BlockArgument arenaOf(func::FuncOp fn) {
  if (fn.isExternal() || fn.getNumArguments() != 1)
    return {};
  auto type = dyn_cast<MemRefType>(fn.getArgument(0).getType());
  if (!type || type.getRank() != 1 || !type.getElementType().isInteger(8))
    return {};
  return fn.getArgument(0);
}

struct ArenaBufferUnitsPass
    : gptc::impl::ArenaBufferUnitsPassBase<ArenaBufferUnitsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    struct View {
      memref::ViewOp op;
      int64_t offset, bytes;
    };
    SmallVector<View> views;
    WalkResult walk = WalkResult::advance();
    for (auto fn : module.getOps<func::FuncOp>()) {
      BlockArgument arena = arenaOf(fn);
      if (!arena)
        continue;
      walk = fn.walk([&](memref::ViewOp view) {
        if (view.getSource() != arena)
          return WalkResult::advance();
        std::optional<int64_t> offset =
            getConstantIntValue(view.getByteShift());
        MemRefType type = view.getType();
        if (!offset || !type.hasStaticShape()) {
          view.emitOpError("an arena view needs a constant offset and a "
                           "static shape");
          return WalkResult::interrupt();
        }
        int64_t bits =
            DataLayout::closest(view).getTypeSizeInBits(type.getElementType());
        views.push_back(
            {view, *offset, type.getNumElements() * ((bits + 7) / 8)});
        return WalkResult::advance();
      });
      if (walk.wasInterrupted())
        return signalPassFailure();
    }
    if (views.empty())
      return;

    // Units: the union of overlapping [offset, offset + bytes).
    SmallVector<std::pair<int64_t, int64_t>> ranges;
    for (const View &v : views)
      ranges.push_back({v.offset, v.offset + std::max<int64_t>(v.bytes, 1)});
    llvm::sort(ranges);
    SmallVector<int64_t> table = {0};
    for (auto [begin, end] : ranges) {
      if (table.size() > 1 && begin < table.back()) {
        table.back() = std::max(table.back(), end);
        continue;
      }
      table.push_back(begin);
      table.push_back(end);
    }
    table[0] = (int64_t(table.size()) - 1) / 2;

    OpBuilder b(module.getBodyRegion());
    b.setInsertionPointToStart(module.getBody());
    Location loc = module.getLoc();
    auto indexType = b.getIndexType();
    auto shiftType = b.getFunctionType({indexType}, {indexType});
    if (!module.lookupSymbol(kShiftFunction)) {
      auto decl = func::FuncOp::create(b, loc, kShiftFunction, shiftType);
      decl.setPrivate();
    }
    auto tableType =
        MemRefType::get({int64_t(table.size())}, b.getIntegerType(64));
    auto tensorType =
        RankedTensorType::get({int64_t(table.size())}, b.getIntegerType(64));
    memref::GlobalOp::create(
        b, loc, kUnitsGlobal, b.getStringAttr("public"), tableType,
        DenseIntElementsAttr::get(tensorType, ArrayRef<int64_t>(table)),
        /*constant=*/true, /*alignment=*/nullptr);
    for (View &v : views) {
      b.setInsertionPoint(v.op);
      auto call = func::CallOp::create(b, v.op.getLoc(), kShiftFunction,
                                       TypeRange{indexType},
                                       ValueRange{v.op.getByteShift()});
      v.op.getByteShiftMutable().assign(call.getResult(0));
    }
  }
};

} // namespace
