//===- SplitHost.cpp - A long step function as a chain of calls -----------===//
//
// func.func @gptc_grad_step(%arena: memref<Nxi8>) {
//   ... thousands of kernel and GEMM calls ...
// }
//   =>
// func.func @gptc_grad_step(%arena: memref<Nxi8>) {
//   %0 = call @gptc_grad_step_part_0(%arena) : (memref<Nxi8>) -> f32
//   call @gptc_grad_step_part_1(%arena, %0) : (memref<Nxi8>, f32) -> ()
//   return
// }
//
// See the pass description in passes/CPU/CPUPasses.td.
//
//===----------------------------------------------------------------------===//

#include "passes/CPU/BarePointers.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

namespace gptc {
#define GEN_PASS_DEF_SPLITHOSTPASS
#include "passes/Passes.h.inc"
} // namespace gptc

using namespace mlir;

namespace {

/// One function's split: its top-level ops, and what a part recomputes
/// rather than takes (constants and views of the function's arguments).
class HostSplitter {
public:
  HostSplitter(func::FuncOp host, SymbolTable &symbols, int64_t maxOps)
      : host(host), symbols(symbols), maxOps(maxOps) {}

  /// Splits the function if it is longer than `maxOps`; the parts made.
  unsigned run() {
    Block &body = host.getBody().front();
    // Allocations and frees stay in the function: a part's frame ends
    // with it, and a part may then take every buffer as a bare pointer
    // (one that is freed must keep the pointer malloc returned).
    SmallVector<Operation *> work;
    int64_t total = 0;
    for (Operation &op : body.without_terminator()) {
      if (staysInHost(&op)) {
        if (isa<memref::AllocaOp, memref::AllocOp>(op) &&
            op.getNumOperands() != 0)
          return 0;
        continue;
      }
      if (isRecomputable(&op))
        continue;
      work.push_back(&op);
      total += weight(&op);
    }
    if (host.getBody().getBlocks().size() != 1 || total <= maxOps)
      return 0;

    unsigned parts = 0;
    SmallVector<Operation *> segment;
    int64_t size = 0;
    for (Operation *op : work) {
      segment.push_back(op);
      size += weight(op);
      if (size >= maxOps) {
        outline(segment, parts++);
        segment.clear();
        size = 0;
      }
    }
    if (!segment.empty())
      outline(segment, parts++);
    // The constants and views only the parts used are dead now.
    IRRewriter rewriter(host.getContext());
    (void)runRegionDCE(rewriter, host->getRegions());
    return parts;
  }

private:
  static int64_t weight(Operation *op) {
    int64_t n = 0;
    op->walk([&](Operation *) { ++n; });
    return n;
  }

  static bool staysInHost(Operation *op) {
    return isa<memref::AllocaOp, memref::AllocOp, memref::DeallocOp>(op);
  }

  /// A constant, a view or index arithmetic: an op without memory effects
  /// or regions whose operands are the function's arguments or also
  /// recomputable. A part computes it again instead of taking its results.
  bool isRecomputable(Operation *def) {
    if (!def || def->getParentOp() != host)
      return false;
    auto [it, inserted] = recomputable.try_emplace(def, false);
    if (!inserted)
      return it->second;
    bool result = def->getNumRegions() == 0 && def->getNumResults() > 0 &&
                  isMemoryEffectFree(def) &&
                  llvm::all_of(def->getOperands(), [&](Value operand) {
                    return isa<BlockArgument>(operand) ||
                           isRecomputable(operand.getDefiningOp());
                  });
    recomputable[def] = result;
    return result;
  }

  /// In a part: `v` itself, computed again if recomputable, or the
  /// argument that takes it (added to `inputs`).
  Value lookup(Value v, OpBuilder &b, IRMapping &mapping,
               llvm::SetVector<Value> &inputs, Block *entry) {
    if (Value mapped = mapping.lookupOrNull(v))
      return mapped;
    if (Operation *def = v.getDefiningOp(); isRecomputable(def)) {
      for (Value operand : def->getOperands())
        lookup(operand, b, mapping, inputs, entry);
      b.clone(*def, mapping);
      return mapping.lookup(v);
    }
    inputs.insert(v);
    Value arg = entry->addArgument(v.getType(), v.getLoc());
    mapping.map(v, arg);
    return arg;
  }

  /// `segment` (consecutive top-level ops) as the function @HOST_part_N,
  /// and a call of it in their place.
  void outline(ArrayRef<Operation *> segment, unsigned index) {
    llvm::SmallPtrSet<Operation *, 32> inSegment(segment.begin(),
                                                 segment.end());
    Location loc = segment.front()->getLoc();
    OpBuilder b(host.getContext());
    b.setInsertionPointAfter(lastPart ? lastPart : host.getOperation());
    auto part = func::FuncOp::create(
        b, loc, (host.getSymName() + "_part_" + Twine(index)).str(),
        b.getFunctionType({}, {}));
    symbols.insert(part);
    lastPart = part;
    part.setPrivate();
    part->setAttr("passthrough", b.getStrArrayAttr({"noinline"}));
    Block *entry = part.addEntryBlock();
    b.setInsertionPointToStart(entry);

    // The values the segment uses from before it: taken or recomputed.
    IRMapping mapping;
    llvm::SetVector<Value> inputs;
    for (Operation *op : segment)
      op->walk([&](Operation *nested) {
        for (Value operand : nested->getOperands()) {
          Operation *def = operand.getDefiningOp();
          Region *region = operand.getParentRegion();
          bool inside =
              def ? inSegment.contains(
                        host.getBody().front().findAncestorOpInBlock(*def))
                  : region != &host.getBody();
          if (!inside)
            lookup(operand, b, mapping, inputs, entry);
        }
      });
    for (Operation *op : segment)
      b.clone(*op, mapping);
    // The values used after it: returned.
    SmallVector<Value> outputs;
    for (Operation *op : segment)
      for (Value result : op->getResults())
        if (llvm::any_of(result.getUsers(), [&](Operation *user) {
              return !inSegment.contains(
                  host.getBody().front().findAncestorOpInBlock(*user));
            }))
          outputs.push_back(result);
    SmallVector<Value> returned;
    for (Value v : outputs)
      returned.push_back(mapping.lookup(v));
    func::ReturnOp::create(b, loc, returned);
    part.setType(b.getFunctionType(entry->getArgumentTypes(),
                                   TypeRange(ValueRange(returned))));
    // Bare pointers where they are safe: every memref of static layout,
    // none returned and none freed in the part (a bare pointer is the
    // aligned one, not the one malloc returned).
    bool freesOrReturns = llvm::any_of(
        outputs, [](Value v) { return isa<BaseMemRefType>(v.getType()); });
    part.walk([&](memref::DeallocOp) { freesOrReturns = true; });
    if (!freesOrReturns &&
        llvm::all_of(entry->getArgumentTypes(), gptc::passesAsBarePointer))
      part->setAttr("llvm.bareptr", b.getUnitAttr());

    // Allocations among the segment's ops go before its call.
    for (Operation *op = segment.front(), *next; op != segment.back();
         op = next) {
      next = op->getNextNode();
      if (isa<memref::AllocaOp, memref::AllocOp>(op))
        op->moveBefore(segment.front());
    }
    b.setInsertionPoint(segment.front());
    auto call = func::CallOp::create(b, loc, part, inputs.getArrayRef());
    for (auto [before, after] : llvm::zip(outputs, call.getResults()))
      before.replaceAllUsesWith(after);
    for (Operation *op : llvm::reverse(segment))
      op->erase();
  }

  func::FuncOp host;
  SymbolTable &symbols;
  int64_t maxOps;
  llvm::DenseMap<Operation *, bool> recomputable;
  Operation *lastPart = nullptr; // the parts follow the function in order
};

struct SplitHostPass : gptc::impl::SplitHostPassBase<SplitHostPass> {
  using SplitHostPassBase::SplitHostPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<func::FuncOp> hosts;
    for (auto fn : module.getOps<func::FuncOp>())
      if (!fn.isDeclaration())
        hosts.push_back(fn);
    for (func::FuncOp host : hosts)
      numParts += HostSplitter(host, symbols, maxOps).run();
  }
};

} // namespace
