//===- LowerComm.cpp - The gptc-lower-comm pass ---------------------------===//
//
// %r = comm.all_reduce avg %g : tensor<...xf32>
//   =>
// (right after %g's producer)
// %in  = bufferization.to_buffer %g read_only : memref<...xf32>
// %out = memref.alloc() : memref<...xf32>
// %h   = call @gptc_comm_all_reduce_start(kind, dtype, addr(%in),
//                                         addr(%out), count)
// ... the rest of the step ...
// (just before %r's first user)
// call @gptc_comm_wait(%h, addr(%in), addr(%out))
// %r = bufferization.to_tensor %out restrict writable
//
// comm.all_gather and comm.shard: one blocking call each, at the op.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "runtime/gptrt.h"

#define DEBUG_TYPE "gptc-lower-comm"

namespace gptc {
#define GEN_PASS_DEF_LOWERCOMMPASS
#include "passes/Passes.h.inc"
} // namespace gptc

using namespace mlir;

namespace {

/// The runtime's code for an element type (runtime/gptrt.h).
std::optional<int64_t> dtypeCode(Type t) {
  if (t.isF32())
    return GPTC_DTYPE_F32;
  if (t.isBF16())
    return GPTC_DTYPE_BF16;
  if (t.isF64())
    return GPTC_DTYPE_F64;
  if (t.isInteger(32))
    return GPTC_DTYPE_I32;
  if (t.isInteger(64))
    return GPTC_DTYPE_I64;
  return std::nullopt;
}

/// Declares (or finds) `name` : (i64 x args) -> (i64 x results).
func::FuncOp callee(ModuleOp module, StringRef name, unsigned args,
                    unsigned results) {
  if (auto fn = module.lookupSymbol<func::FuncOp>(name))
    return fn;
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  Type i64 = b.getI64Type();
  auto fn =
      func::FuncOp::create(b, module.getLoc(), name,
                           b.getFunctionType(SmallVector<Type>(args, i64),
                                             SmallVector<Type>(results, i64)));
  fn.setPrivate();
  return fn;
}

class CommLowering {
public:
  explicit CommLowering(ModuleOp module) : module(module) {}

  LogicalResult lower(Operation *op) {
    auto input = cast<TypedValue<RankedTensorType>>(op->getOperand(0));
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    if (!input.getType().hasStaticShape() || !resultType.hasStaticShape())
      return op->emitOpError("gptc-lower-comm needs static shapes");
    std::optional<int64_t> dtype = dtypeCode(resultType.getElementType());
    if (!dtype)
      return op->emitOpError("gptc-lower-comm: no runtime code for ")
             << resultType.getElementType();
    Location loc = op->getLoc();
    OpBuilder b(op);
    // An all-reduce starts where its operand is final; only when nothing
    // else uses the operand, which the backend may read until the wait.
    auto reduce = dyn_cast<comm::AllReduceOp>(op);
    Operation *producer = input.getDefiningOp();
    if (reduce && producer && producer->getBlock() == op->getBlock() &&
        input.hasOneUse())
      b.setInsertionPointAfter(producer);
    Value in = bufferization::ToBufferOp::create(
        b, loc,
        MemRefType::get(input.getType().getShape(),
                        input.getType().getElementType()),
        input, /*read_only=*/true);
    Value out = memref::AllocOp::create(
        b, loc,
        MemRefType::get(resultType.getShape(), resultType.getElementType()));
    // Elements each rank contributes; the bytes of this rank's shard.
    int64_t count = input.getType().getNumElements();
    int64_t bytes = resultType.getNumElements() *
                    ((resultType.getElementTypeBitWidth() + 7) / 8);
    if (reduce) {
      Value handle = call(b, loc, "gptc_comm_all_reduce_start",
                          {constant(b, loc, int64_t(reduce.getKind())),
                           constant(b, loc, *dtype), address(b, loc, in),
                           address(b, loc, out), constant(b, loc, count)},
                          1)
                         .front();
      b.setInsertionPoint(firstUser(op));
      call(b, loc, "gptc_comm_wait",
           {handle, address(b, loc, in), address(b, loc, out)}, 0);
    } else if (isa<comm::AllGatherOp>(op)) {
      call(b, loc, "gptc_comm_all_gather",
           {constant(b, loc, *dtype), address(b, loc, in), address(b, loc, out),
            constant(b, loc, count)},
           0);
    } else {
      // comm.shard: the result is one of world_size equal slices.
      call(b, loc, "gptc_comm_shard",
           {address(b, loc, in), address(b, loc, out), constant(b, loc, bytes)},
           0);
    }
    Value result = bufferization::ToTensorOp::create(
        b, loc, resultType, out, /*restrict=*/true, /*writable=*/true);
    op->getResult(0).replaceAllUsesWith(result);
    op->erase();
    return success();
  }

private:
  Value constant(OpBuilder &b, Location loc, int64_t v) {
    return arith::ConstantIntOp::create(b, loc, v, 64);
  }
  /// The address of `buffer`'s first element (identity layout: offset 0).
  Value address(OpBuilder &b, Location loc, Value buffer) {
    Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
    return arith::IndexCastOp::create(b, loc, b.getI64Type(), base);
  }
  ValueRange call(OpBuilder &b, Location loc, StringRef name,
                  ArrayRef<Value> args, unsigned results) {
    func::FuncOp fn = callee(module, name, args.size(), results);
    return func::CallOp::create(b, loc, fn, args).getResults();
  }
  /// The first op of `op`'s block that uses its result (through nested
  /// regions too); the block's terminator when nothing does.
  Operation *firstUser(Operation *op) {
    Operation *first = op->getBlock()->getTerminator();
    for (Operation *user : op->getResult(0).getUsers()) {
      Operation *inBlock = op->getBlock()->findAncestorOpInBlock(*user);
      if (inBlock && inBlock->isBeforeInBlock(first))
        first = inBlock;
    }
    return first;
  }

  ModuleOp module;
};

struct LowerCommPass : gptc::impl::LowerCommPassBase<LowerCommPass> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (isa<comm::AllReduceOp, comm::AllGatherOp, comm::ShardOp>(op))
        ops.push_back(op);
    });
    CommLowering lowering(getOperation());
    for (Operation *op : ops)
      if (failed(lowering.lower(op)))
        return signalPassFailure();
  }
};

} // namespace
