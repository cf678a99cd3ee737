//===- HostComputeToDevice.cpp - The gptc-host-compute-to-device pass -----===//
//
// %v = memref.view %arena[...]            %v = memref.view %arena[...]
// %x = memref.load %v[]                   gpu.launch blocks(1, 1, 1)
// %y = arith.mulf %x, %c : f32      =>               threads(1, 1, 1) {
// memref.store %y, %w[]                     %x = memref.load %v[]
// gpu.launch ...                            %y = arith.mulf %x, %c : f32
//                                           memref.store %y, %w[]
//                                           gpu.terminator
//                                         }
//                                         gpu.launch ...
//
// See the pass description in passes/GPU/GPUPasses.td.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/SetVector.h"

#define DEBUG_TYPE "gptc-host-compute-to-device"

namespace gptc {
#define GEN_PASS_DEF_HOSTCOMPUTETODEVICEPASS
#include "passes/Passes.h.inc"
} // namespace gptc

using namespace mlir;

namespace {

/// True for an op that reads or writes the contents of a buffer (on the
/// host, a read of device memory), or holds one in its regions: the work
/// that must move to the device. Launches and calls are host work.
bool touchesBufferContents(Operation *op) {
  if (isa<gpu::LaunchOp, func::CallOp>(op))
    return false;
  if (isa<memref::LoadOp, memref::StoreOp, memref::CopyOp>(op))
    return true;
  if (op->getNumRegions() == 0)
    return false;
  bool touches = false, hostOnly = false;
  op->walk([&](Operation *inner) {
    if (isa<gpu::LaunchOp, func::CallOp, memref::AllocOp, memref::DeallocOp>(
            inner))
      hostOnly = true;
    if (isa<memref::LoadOp, memref::StoreOp, memref::CopyOp>(inner))
      touches = true;
  });
  return touches && !hostOnly;
}

/// Where a buffer lies: its root allocation (a function argument, an
/// allocation, or whatever else it cannot be traced through) and, when it
/// is (a part of) a `memref.view` at a constant offset, the view's bytes.
struct BufferPlace {
  Value root;
  int64_t begin = 0, end = -1; ///< end < 0: anywhere in the root
};

BufferPlace placeOf(Value buffer) {
  BufferPlace place;
  bool known = true, placed = false;
  Value v = buffer;
  while (Operation *def = v.getDefiningOp()) {
    if (auto view = dyn_cast<memref::ViewOp>(def)) {
      // The innermost view gives the bytes, each view around it its shift
      // (memref.view's byte shift is into its source's bytes).
      auto shift = view.getByteShift().getDefiningOp<arith::ConstantIndexOp>();
      MemRefType type = view.getType();
      if (!shift)
        known = false;
      else if (!placed) {
        if (!type.hasStaticShape() ||
            !type.getElementType().isIntOrIndexOrFloat())
          known = false;
        int64_t width = type.getElementType().isIndex()
                            ? 8 // the arena's index (ArenaBufferUnits)
                            : (type.getElementTypeBitWidth() + 7) / 8;
        place.begin = shift.value();
        place.end = place.begin + type.getNumElements() * width;
        placed = true;
      } else {
        place.begin += shift.value();
        place.end += shift.value();
      }
      v = view.getSource();
      continue;
    }
    auto viewLike = dyn_cast<ViewLikeOpInterface>(def);
    if (!viewLike)
      break;
    // A part of a view stays within its bytes; a view of a part does not
    // say where in the root it is.
    if (placed)
      known = false;
    v = viewLike.getViewSource();
  }
  place.root = v;
  if (!known || !placed)
    place.end = -1;
  return place;
}

/// Whether two buffers may share bytes: buffers of two memory spaces,
/// views of one root whose byte ranges are apart, and distinct function
/// arguments or allocations, do not.
bool mayAlias(Value a, Value b) {
  // A kernel's shared (workgroup) or private buffer is no global memory.
  auto ta = dyn_cast<MemRefType>(a.getType());
  auto tb = dyn_cast<MemRefType>(b.getType());
  if (!ta || !tb)
    return true;
  if (ta.getMemorySpace() != tb.getMemorySpace())
    return false;
  BufferPlace pa = placeOf(a), pb = placeOf(b);
  // A step function's arguments are distinct buffers (the arena, or in
  // tests one buffer each); loop and region arguments are not known.
  auto distinct = [](Value root) {
    if (auto arg = dyn_cast<BlockArgument>(root))
      return arg.getOwner()->isEntryBlock() &&
             isa<func::FuncOp>(arg.getOwner()->getParentOp());
    return isa_and_nonnull<memref::AllocOp, memref::AllocaOp>(
        root.getDefiningOp());
  };
  if (pa.root != pb.root)
    return !(distinct(pa.root) && distinct(pb.root));
  if (pa.end < 0 || pb.end < 0)
    return true;
  return pa.begin < pb.end && pb.begin < pa.end;
}

/// The buffers whose addresses `value` is computed from (a GEMM's or a
/// collective's i64 address operand: memref.extract_aligned_pointer_as_index
/// and arithmetic), or false when it may come from anywhere else.
bool addressedBuffers(Value value, SmallVectorImpl<Value> &buffers) {
  SmallVector<Value> pending = {value};
  llvm::SmallPtrSet<Operation *, 8> seen;
  while (!pending.empty()) {
    Operation *def = pending.pop_back_val().getDefiningOp();
    if (!def)
      return false;
    if (!seen.insert(def).second)
      continue;
    if (isa<memref::ExtractAlignedPointerAsIndexOp,
            memref::ExtractStridedMetadataOp>(def)) {
      buffers.push_back(def->getOperand(0));
      continue;
    }
    if (def->getNumRegions() != 0 || !isMemoryEffectFree(def))
      return false;
    for (Value operand : def->getOperands())
      pending.push_back(operand);
  }
  return true;
}

/// The buffers `op` and the ops in its regions may write, or false when it
/// may write anywhere: an op whose effects are not known writes every
/// buffer among its operands, and a call also every buffer an integer
/// operand may address (false when one is not traced to buffers and
/// constants).
bool collectWrites(Operation *op, SmallVectorImpl<Value> &written) {
  auto operandBuffers = [&](Operation *inner) {
    const bool call = isa<CallOpInterface>(inner);
    for (Value operand : inner->getOperands()) {
      if (isa<MemRefType>(operand.getType()))
        written.push_back(operand);
      else if (call && operand.getType().isIntOrIndex() &&
               !addressedBuffers(operand, written))
        return false;
    }
    return true;
  };
  WalkResult walk = op->walk([&](Operation *inner) {
    auto effects = dyn_cast<MemoryEffectOpInterface>(inner);
    if (!effects) {
      if (isMemoryEffectFree(inner) ||
          inner->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
        return WalkResult::advance();
      return operandBuffers(inner) ? WalkResult::advance()
                                   : WalkResult::interrupt();
    }
    SmallVector<MemoryEffects::EffectInstance> list;
    effects.getEffects(list);
    for (const MemoryEffects::EffectInstance &effect : list) {
      if (!isa<MemoryEffects::Write, MemoryEffects::Free>(effect.getEffect()))
        continue;
      if (Value value = effect.getValue())
        written.push_back(value);
      else if (!operandBuffers(inner)) // a write to an unknown place
        return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return !walk.wasInterrupted();
}

/// An op that may join a run of device work: computes values only.
bool isPureScalarWork(Operation *op) {
  return op->getNumRegions() == 0 && isMemoryEffectFree(op) &&
         llvm::all_of(op->getResultTypes(),
                      [](Type t) { return t.isIntOrIndexOrFloat(); });
}

struct HostComputeToDevicePass
    : gptc::impl::HostComputeToDevicePassBase<HostComputeToDevicePass> {
  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    // Outer blocks first: a loop that moves takes its body along.
    SmallVector<Block *> blocks;
    fn.walk<WalkOrder::PreOrder>(
        [&](Block *block) { blocks.push_back(block); });
    for (Block *block : blocks) {
      Operation *parent = block->getParentOp();
      if (isa<gpu::LaunchOp>(parent) ||
          parent->getParentOfType<gpu::LaunchOp>())
        continue;
      if (failed(moveRuns(*block)))
        return signalPassFailure();
    }
  }

  /// `v` (computed at the top level of `run` from buffer reads and scalar
  /// arithmetic) recomputed at the start of each kernel of its `uses`, when
  /// nothing from the run to the last of those kernels may write the
  /// buffers it reads: the kernels then read what the run read. Fails
  /// (changing nothing) otherwise.
  LogicalResult
  recomputeInKernels(Value v, ArrayRef<OpOperand *> uses,
                     ArrayRef<Operation *> run,
                     const llvm::SmallPtrSet<Operation *, 16> &inRun) {
    Block *block = run.front()->getBlock();
    // The slice of the run v depends on, in program order.
    llvm::SetVector<Operation *> slice;
    SmallVector<Value> reads, pending = {v};
    while (!pending.empty()) {
      Operation *def = pending.pop_back_val().getDefiningOp();
      if (!def || !inRun.contains(def) || slice.contains(def))
        continue;
      if (auto load = dyn_cast<memref::LoadOp>(def)) {
        Operation *source = load.getMemRef().getDefiningOp();
        if (source && inRun.contains(source))
          return failure();
        reads.push_back(load.getMemRef());
      } else if (!isPureScalarWork(def)) {
        return failure();
      }
      slice.insert(def);
      for (Value operand : def->getOperands())
        pending.push_back(operand);
    }
    // The kernels of the uses, and what may be written up to the last one.
    SmallVector<gpu::LaunchOp> launches;
    Operation *last = run.back();
    for (OpOperand *use : uses) {
      auto launch = use->getOwner()->getParentOfType<gpu::LaunchOp>();
      while (auto outer = launch->getParentOfType<gpu::LaunchOp>())
        launch = outer;
      Operation *top = block->findAncestorOpInBlock(*launch);
      if (!top)
        return failure();
      if (!llvm::is_contained(launches, launch))
        launches.push_back(launch);
      if (last->isBeforeInBlock(top))
        last = top;
    }
    SmallVector<Value> written;
    for (Operation *op = run.front(); op; op = op->getNextNode()) {
      if (!collectWrites(op, written))
        return failure();
      if (op == last)
        break;
    }
    for (Value read : reads)
      for (Value write : written)
        if (mayAlias(read, write))
          return failure();
    SmallVector<Operation *> ordered(slice.begin(), slice.end());
    llvm::sort(ordered, [](Operation *a, Operation *b) {
      return a->isBeforeInBlock(b);
    });
    for (gpu::LaunchOp launch : launches) {
      OpBuilder b(&launch.getBody().front(), launch.getBody().front().begin());
      IRMapping mapping;
      for (Operation *op : ordered)
        b.clone(*op, mapping);
      for (OpOperand *use : uses)
        if (launch->isAncestor(use->getOwner()))
          use->set(mapping.lookup(v));
    }
    return success();
  }

  /// `v` (computed in `run`, at run[n]) reaches its `uses` in later kernels
  /// through a device scalar: the run stores it, each kernel loads it.
  LogicalResult passThroughDevice(Value v, ArrayRef<OpOperand *> uses,
                                  SmallVector<Operation *> &run,
                                  llvm::SmallPtrSet<Operation *, 16> &inRun,
                                  size_t n) {
    Operation *def = run[n];
    Location loc = def->getLoc();
    OpBuilder b(run.front());
    auto type = MemRefType::get({}, v.getType());
    Value scalar = memref::AllocOp::create(b, loc, type);
    b.setInsertionPoint(run.front()->getBlock()->getTerminator());
    memref::DeallocOp::create(b, loc, scalar);
    b.setInsertionPointAfter(def);
    auto store = memref::StoreOp::create(b, loc, v, scalar, ValueRange{});
    run.insert(run.begin() + n + 1, store);
    inRun.insert(store);
    llvm::DenseMap<Operation *, Value> loaded;
    for (OpOperand *use : uses) {
      auto launch = use->getOwner()->getParentOfType<gpu::LaunchOp>();
      while (auto outer = launch->getParentOfType<gpu::LaunchOp>())
        launch = outer;
      Value &value = loaded[launch];
      if (!value) {
        OpBuilder lb(&launch.getBody().front(),
                     launch.getBody().front().begin());
        value = memref::LoadOp::create(lb, loc, scalar, ValueRange{});
      }
      use->set(value);
    }
    return success();
  }

  /// Every maximal run of device work in `block` (buffer reads and writes
  /// and the scalar arithmetic between them) becomes one single-thread
  /// launch.
  LogicalResult moveRuns(Block &block) {
    SmallVector<SmallVector<Operation *>> runs;
    SmallVector<Operation *> run;
    auto close = [&]() {
      // Trailing scalar work stays on the host (it feeds what follows).
      while (!run.empty() && !touchesBufferContents(run.back()))
        run.pop_back();
      if (!run.empty())
        runs.push_back(run);
      run.clear();
    };
    for (Operation &op : block) {
      if (touchesBufferContents(&op))
        run.push_back(&op);
      else if (!run.empty() && isPureScalarWork(&op))
        run.push_back(&op);
      else
        close();
    }
    close();
    // Last run first: a value a run passes on is then used inside kernels
    // only (the later runs are kernels already).
    for (ArrayRef<Operation *> r : llvm::reverse(runs))
      if (failed(moveRun(r)))
        return failure();
    return success();
  }

  LogicalResult moveRun(ArrayRef<Operation *> runOps) {
    SmallVector<Operation *> run(runOps.begin(), runOps.end());
    llvm::SmallPtrSet<Operation *, 16> inRun(run.begin(), run.end());
    auto outside = [&](Operation *anchor, OpOperand &use) {
      Operation *top =
          anchor->getBlock()->findAncestorOpInBlock(*use.getOwner());
      return !top || !inRun.contains(top);
    };
    // A scalar the run computes and the host uses after it: pure work with
    // operands from before the run is copied out; a value read from device
    // memory that only later kernels use is computed again in them
    // (recomputeInKernels), or else travels through a device scalar.
    for (size_t n = 0; n < run.size(); ++n) {
      Operation *op = run[n];
      if (llvm::none_of(op->getUses(),
                        [&](OpOperand &use) { return outside(op, use); }))
        continue;
      bool operandsFromBefore = llvm::all_of(op->getOperands(), [&](Value v) {
        Operation *def = v.getDefiningOp();
        return !def || !inRun.contains(def);
      });
      if (isPureScalarWork(op) && operandsFromBefore) {
        OpBuilder b(run.front());
        Operation *copy = b.clone(*op);
        op->replaceUsesWithIf(copy->getResults(),
                              [&](OpOperand &use) { return outside(op, use); });
        continue;
      }
      for (Value v : op->getResults()) {
        SmallVector<OpOperand *> uses;
        for (OpOperand &use : v.getUses())
          if (outside(op, use))
            uses.push_back(&use);
        if (uses.empty())
          continue;
        for (OpOperand *use : uses)
          if (!use->getOwner()->getParentOfType<gpu::LaunchOp>()) {
            InFlightDiagnostic diag =
                op->emitError("a value computed from device memory is used "
                              "on the host; it cannot move into a kernel");
            diag.attachNote(use->getOwner()->getLoc())
                << "used by " << use->getOwner()->getName() << " here";
            return diag;
          }
        if (succeeded(recomputeInKernels(v, uses, run, inRun)))
          continue;
        if (failed(passThroughDevice(v, uses, run, inRun, n)))
          return failure();
      }
    }
    Operation *first = run.front();
    OpBuilder b(first);
    Location loc = first->getLoc();
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    auto launch = gpu::LaunchOp::create(b, loc, one, one, one, one, one, one);
    launch->setAttr("gptc.single_thread", b.getUnitAttr());
    Block &body = launch.getBody().front();
    b.setInsertionPointToEnd(&body);
    auto terminator = gpu::TerminatorOp::create(b, loc);
    for (Operation *op : run)
      op->moveBefore(terminator);
    return success();
  }
};

} // namespace
