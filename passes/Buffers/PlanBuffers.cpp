//===- PlanBuffers.cpp - The step's temporaries in the arena, by liveness -===//
//
// %b = memref.alloc() : memref<4x128xf32>          (entry block of a step)
// ... uses of %b ...
// memref.dealloc %b : memref<4x128xf32>            (if any)
//   =>
// %o = arith.constant <workspace offset + offset of %b> : index
// %b = memref.view %arena[%o][] : memref<Nxi8> to memref<4x128xf32>
// ... uses of %b ...
//
// Lifetimes are the intervals [alloc, last use] of op positions in the block;
// offsets come from greedy interval packing (largest buffer first, at the
// lowest offset free during its whole lifetime). See the pass description
// in passes/Buffers/BuffersPasses.td.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "llvm/Support/Debug.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

#define DEBUG_TYPE "gptc-plan-buffers"

namespace gptc {
#define GEN_PASS_DEF_PLANBUFFERSPASS
#include "passes/Passes.h.inc"
} // namespace gptc

using namespace mlir;

namespace {

constexpr int64_t kAlignment = 64;

/// A temporary buffer, the block positions of its alloc and last use, and
/// its dealloc if it has one.
struct Buffer {
  memref::AllocOp alloc;
  memref::DeallocOp dealloc;
  int64_t begin, end; // alloc and last use: positions in the block
  int64_t bytes;      // rounded up to kAlignment
  int64_t offset = 0; // in the workspace
};

/// Bytes of a statically shaped memref with the identity layout and scalar
/// elements (integers, floats, index) in the default memory space, or
/// nullopt. An index takes what the module's data layout gives it (64 bits
/// by default, on both targets): the attention kernels' key bounds are
/// index buffers, and left out they were allocated and freed in every step.
std::optional<int64_t> plannableBytes(MemRefType type,
                                      const DataLayout &layout) {
  Type element = type.getElementType();
  if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
      type.getMemorySpace() || !(element.isIntOrFloat() || element.isIndex()))
    return std::nullopt;
  int64_t bytes = type.getNumElements() *
                  int64_t(layout.getTypeSize(element).getFixedValue());
  return llvm::alignTo(std::max<int64_t>(bytes, 1), kAlignment);
}

/// The position of the last op of `block` that uses `alloc` or anything
/// computed from it (views, extracted pointers, ...; uses inside nested
/// regions count at their ancestor in `block`), the dealloc aside. The
/// deallocation passes put deallocs at the end of the block, so the
/// dealloc itself says little about the lifetime.
int64_t lastUse(memref::AllocOp alloc, Block &block,
                const llvm::DenseMap<Operation *, int64_t> &position) {
  int64_t last = position.lookup(alloc);
  SmallVector<Value> work = {alloc.getResult()};
  llvm::DenseSet<Value> seen = {alloc.getResult()};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (isa<memref::DeallocOp>(user))
        continue;
      if (Operation *inBlock = block.findAncestorOpInBlock(*user))
        last = std::max(last, position.lookup(inBlock));
      for (Value r : user->getResults())
        if (seen.insert(r).second)
          work.push_back(r);
    }
  }
  return last;
}

/// The allocs of `block` that no dealloc frees, or exactly one in the same
/// block does.
SmallVector<Buffer> collectBuffers(Block &block) {
  llvm::DenseMap<Operation *, int64_t> position;
  int64_t index = 0;
  for (Operation &op : block)
    position[&op] = index++;
  SmallVector<Buffer> buffers;
  for (Operation &op : block) {
    auto alloc = dyn_cast<memref::AllocOp>(op);
    if (!alloc || (alloc.getAlignment() && *alloc.getAlignment() > kAlignment))
      continue;
    std::optional<int64_t> bytes =
        plannableBytes(alloc.getType(), DataLayout::closest(alloc));
    if (!bytes)
      continue;
    memref::DeallocOp dealloc;
    unsigned deallocs = 0;
    for (Operation *user : alloc->getUsers())
      if (auto d = dyn_cast<memref::DeallocOp>(user)) {
        dealloc = d;
        ++deallocs;
      }
    if (deallocs > 1 || (dealloc && dealloc->getBlock() != &block))
      continue;
    buffers.push_back({alloc, dealloc, position[alloc],
                       lastUse(alloc, block, position), *bytes});
  }
  return buffers;
}

/// Assigns offsets: buffers live at the same time never share a byte.
/// Returns the workspace size.
int64_t packBuffers(MutableArrayRef<Buffer> buffers) {
  SmallVector<Buffer *> order;
  for (Buffer &b : buffers)
    order.push_back(&b);
  llvm::stable_sort(order, [](const Buffer *x, const Buffer *y) {
    return x->bytes != y->bytes ? x->bytes > y->bytes : x->begin < y->begin;
  });
  SmallVector<Buffer *> placed;
  int64_t total = 0;
  for (Buffer *b : order) {
    SmallVector<std::pair<int64_t, int64_t>> busy; // [offset, end)
    for (Buffer *p : placed)
      if (p->begin <= b->end && b->begin <= p->end)
        busy.push_back({p->offset, p->offset + p->bytes});
    llvm::sort(busy);
    int64_t offset = 0;
    for (auto [start, stop] : busy) {
      if (start - offset >= b->bytes)
        break;
      offset = std::max(offset, stop);
    }
    b->offset = offset;
    total = std::max(total, offset + b->bytes);
    placed.push_back(b);
  }
  return total;
}

/// The arena argument of an entry point of `gptc-build-step`, or null.
BlockArgument arenaArgument(func::FuncOp fn, int64_t arenaBytes) {
  if (fn.isExternal() || fn.getNumArguments() != 1 ||
      !fn.getBody().hasOneBlock())
    return {};
  auto type = dyn_cast<MemRefType>(fn.getArgument(0).getType());
  if (!type || type.getRank() != 1 || !type.getElementType().isInteger(8) ||
      type.getDimSize(0) != arenaBytes)
    return {};
  return fn.getArgument(0);
}

class PlanBuffersPass
    : public gptc::impl::PlanBuffersPassBase<PlanBuffersPass> {
public:
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto layout = module->getAttrOfType<gpt::ArenaLayoutAttr>(
        gpt::ArenaLayoutAttr::kAttrName);
    if (!layout) {
      LLVM_DEBUG(llvm::dbgs() << "no arena layout: nothing to plan\n");
      return;
    }
    const int64_t arenaBytes = layout.getBytes();
    const int64_t workspaceOffset = llvm::alignTo(arenaBytes, kAlignment);

    SmallVector<std::pair<BlockArgument, SmallVector<Buffer>>> plans;
    int64_t workspaceBytes = 0;
    for (auto fn : module.getOps<func::FuncOp>()) {
      BlockArgument arena = arenaArgument(fn, arenaBytes);
      if (!arena)
        continue;
      SmallVector<Buffer> buffers = collectBuffers(fn.getBody().front());
      if (buffers.empty())
        continue;
      workspaceBytes = std::max(workspaceBytes, packBuffers(buffers));
      plans.push_back({arena, std::move(buffers)});
    }
    if (plans.empty())
      return;

    const int64_t total = workspaceOffset + workspaceBytes;
    auto arenaType =
        MemRefType::get({total}, IntegerType::get(&getContext(), 8));
    for (auto &[arena, buffers] : plans) {
      auto fn = cast<func::FuncOp>(arena.getOwner()->getParentOp());
      arena.setType(arenaType);
      fn.setFunctionType(FunctionType::get(&getContext(), {arenaType}, {}));
      for (Buffer &b : buffers) {
        OpBuilder builder(b.alloc);
        Location loc = b.alloc.getLoc();
        Value offset = arith::ConstantIndexOp::create(
            builder, loc, workspaceOffset + b.offset);
        Value view = memref::ViewOp::create(builder, loc, b.alloc.getType(),
                                            arena, offset, ValueRange{});
        b.alloc.replaceAllUsesWith(view);
        if (b.dealloc)
          b.dealloc.erase();
        b.alloc.erase();
      }
    }
    module->setAttr(
        gpt::ArenaLayoutAttr::kAttrName,
        layout.withWorkspace(total, workspaceOffset, workspaceBytes));
  }
};

} // namespace
