//===- BuildStep.cpp - The arena entry points of a training step ----------===//
//
// @forward, @forward_grad, @update (tensor functions whose arguments and
// results name their slots with `gpt.name`)
//   =>
// @gptc_grad_step(%arena), @gptc_update_step(%arena), @gptc_eval_step(%arena)
//
// Each entry point reads its inputs from the arena (memref.view +
// bufferization.to_tensor), calls the tensor function and writes its
// results back (bufferization.materialize_in_destination). A parameter
// slot has the update function's type, its storage: a bf16 parameter
// (`storage: bf16` groups) is read by the model functions through a
// gpt.cast to their wider type, and its gradient slot keeps that type. The
// layout is recorded on the module as `gptc.arena`, a #gpt.arena layout with
// one #gpt.arena_slot per slot. See runtime/gptrt.h.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/Step/TrainingShape.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringMap.h"

#include <map>
#include <set>

#define DEBUG_TYPE "gptc-build-step"

namespace gptc {
#define GEN_PASS_DEF_BUILDSTEPPASS
#include "passes/Passes.h.inc"
} // namespace gptc

using namespace mlir;

namespace {

constexpr int64_t kSlotAlignment = 64;

/// The arena slot of argument `i` of `fn`: `gpt.name`, prefixed with
/// "param." for parameters of the model functions.
std::string argSlot(func::FuncOp fn, unsigned i) {
  auto name = fn.getArgAttrOfType<StringAttr>(i, "gpt.name");
  if (!name)
    return "";
  if (fn.getArgAttr(i, "gpt.param"))
    return ("param." + name.getValue()).str();
  return name.str();
}

int64_t byteSize(RankedTensorType t) {
  return t.getNumElements() *
         static_cast<int64_t>((t.getElementTypeBitWidth() + 7) / 8);
}

class ArenaLayout {
public:
  /// Adds `name` (once); all uses of a name must agree on its type, but
  /// for a parameter the update function stores as bf16 (its `storage`
  /// use) and the model functions read in a wider float type: the slot is
  /// bf16, read extended (EntryBuilder::call).
  LogicalResult add(Location loc, StringRef name, Type type,
                    bool storage = false) {
    auto t = dyn_cast<RankedTensorType>(type);
    if (!t || !t.hasStaticShape())
      return emitError(loc)
             << "slot '" << name << "' needs a statically shaped tensor";
    auto [it, inserted] = slots.try_emplace(name.str(), Slot{t, 0});
    if (inserted || it->second.type == t)
      return success();
    RankedTensorType narrow = storage ? t : it->second.type;
    RankedTensorType wide = storage ? it->second.type : t;
    if (name.starts_with("param.") && narrow.getShape() == wide.getShape() &&
        narrow.getElementType().isBF16() &&
        isa<Float32Type, Float64Type>(wide.getElementType())) {
      it->second.type = narrow;
      return success();
    }
    return emitError(loc) << "slot '" << name << "' used with types "
                          << it->second.type << " and " << t;
  }
  /// Keeps slot `name` (added already) in `type`, of its shape and fewer
  /// bits: what every entry point reads from it is extended again.
  void narrow(StringRef name, RankedTensorType type) {
    slots.find(name.str())->second.type = type;
  }
  void assignOffsets() {
    int64_t offset = 0;
    for (auto &[name, slot] : slots) {
      slot.offset = offset;
      offset += (byteSize(slot.type) + kSlotAlignment - 1) / kSlotAlignment *
                kSlotAlignment;
    }
    bytes = std::max<int64_t>(offset, kSlotAlignment);
  }
  struct Slot {
    RankedTensorType type;
    int64_t offset;
  };
  const Slot &get(StringRef name) const {
    return slots.find(name.str())->second;
  }
  llvm::MapVector<std::string, Slot, std::map<std::string, unsigned>> slots;
  int64_t bytes = 0;
};

/// Builds the body of one entry point: reads, a call, writes.
class EntryBuilder {
public:
  EntryBuilder(OpBuilder &b, Location loc, Value arena, const ArenaLayout &l)
      : b(b), loc(loc), arena(arena), layout(l) {}

  Value view(StringRef name) {
    const ArenaLayout::Slot &slot = layout.get(name);
    auto memrefType =
        MemRefType::get(slot.type.getShape(), slot.type.getElementType());
    Value offset = arith::ConstantIndexOp::create(b, loc, slot.offset);
    return memref::ViewOp::create(b, loc, memrefType, arena, offset,
                                  ValueRange{});
  }
  /// The slots this entry point writes: their buffers may also be updated
  /// in place by the kernels that compute their new values (a parameter,
  /// an optimizer state, an accumulated gradient), instead of through a
  /// temporary and a copy. Every other slot is read-only.
  void willWrite(StringRef name) { written.insert(name.str()); }

  Value read(StringRef name) {
    const ArenaLayout::Slot &slot = layout.get(name);
    return bufferization::ToTensorOp::create(
        b, loc, slot.type, view(name), /*restrict=*/true,
        /*writable=*/written.count(name.str()) != 0);
  }
  void write(StringRef name, Value value) {
    auto op = bufferization::MaterializeInDestinationOp::create(
        b, loc, TypeRange{}, value, view(name));
    op.setRestrict(true);
    op.setWritable(true);
  }
  /// Calls `fn` with its arguments read from their slots (a parameter
  /// stored as bf16 extended to the argument's type).
  ValueRange call(func::FuncOp fn) {
    SmallVector<Value> args;
    for (unsigned i = 0; i < fn.getNumArguments(); ++i) {
      Value slot = read(argSlot(fn, i));
      auto type = cast<RankedTensorType>(fn.getArgumentTypes()[i]);
      if (slot.getType() != type) // bf16 -> f32 (-> f64: exact)
        slot = gpt::CastOp::create(b, loc, type.clone(b.getF32Type()), slot);
      if (slot.getType() != type)
        slot = gpt::CastOp::create(b, loc, type, slot);
      args.push_back(slot);
    }
    return func::CallOp::create(b, loc, fn, args).getResults();
  }

private:
  OpBuilder &b;
  Location loc;
  Value arena;
  const ArenaLayout &layout;
  std::set<std::string> written;
};

struct BuildStepPass : gptc::impl::BuildStepPassBase<BuildStepPass> {
  using BuildStepPassBase::BuildStepPassBase;

  /// `value` averaged over the data-parallel ranks (itself with one); in
  /// `wire` elements when given: rounded to them, averaged, and read back
  /// extended unless `keepWire` (a group's `grad_reduce: bf16`).
  Value averageOverRanks(OpBuilder &b, Location loc, Value value,
                         Type wire = Type(), bool keepWire = false) {
    if (ranks == 1)
      return value;
    auto type = cast<RankedTensorType>(value.getType());
    if (!wire || wire == type.getElementType())
      return comm::AllReduceOp::create(b, loc, type, comm::ReductionKind::avg,
                                       value);
    auto wireType = type.clone(wire);
    Value rounded = gpt::CastOp::create(b, loc, wireType, value);
    Value mean = comm::AllReduceOp::create(b, loc, wireType,
                                           comm::ReductionKind::avg, rounded);
    if (keepWire)
      return mean;
    return gpt::CastOp::create(b, loc, type, mean);
  }

  /// The element type @update asks the ranks to average each gradient in
  /// (kReduceTypeAttr on its argument), by the argument's slot name; a
  /// gradient not named here is averaged in its own type.
  static llvm::StringMap<Type> reduceTypes(func::FuncOp update) {
    llvm::StringMap<Type> types;
    for (unsigned i = 0; i < update.getNumArguments(); ++i) {
      auto name = update.getArgAttrOfType<StringAttr>(i, "gpt.name");
      auto wire = update.getArgAttrOfType<TypeAttr>(i, gptc::kReduceTypeAttr);
      if (name && wire)
        types[name.getValue()] = wire.getValue();
    }
    return types;
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Unset (0): the module's (the spec's, recorded by the frontend).
    FailureOr<int64_t> worldSize = gptc::trainingCount(
        module, gptc::kRanksAttr, ranks, "gptc-build-step", "ranks");
    FailureOr<int64_t> microSteps =
        gptc::trainingCount(module, gptc::kGradAccumAttr, gradAccum,
                            "gptc-build-step", "grad-accum");
    if (failed(worldSize) || failed(microSteps))
      return signalPassFailure();
    ranks = *worldSize;
    gradAccum = *microSteps;
    auto forward = module.lookupSymbol<func::FuncOp>("forward");
    auto grad = module.lookupSymbol<func::FuncOp>("forward_grad");
    auto update = module.lookupSymbol<func::FuncOp>("update");
    // @logits (optional): the head's logits at chosen positions, sampled
    // from by `gptc sample`.
    auto logits = module.lookupSymbol<func::FuncOp>("logits");
    if (!forward || !grad || !update) {
      module.emitError("gptc-build-step needs @forward, @forward_grad and "
                       "@update");
      return signalPassFailure();
    }

    // Slots: every named argument and result, then the outputs.
    ArenaLayout layout;
    auto addArgs = [&](func::FuncOp fn) {
      for (unsigned i = 0; i < fn.getNumArguments(); ++i) {
        std::string name = argSlot(fn, i);
        if (name.empty()) {
          fn.emitError() << "argument " << i << " has no gpt.name";
          return failure();
        }
        if (failed(layout.add(fn.getLoc(), name, fn.getArgumentTypes()[i],
                              /*storage=*/fn == update)))
          return failure();
      }
      return success();
    };
    if (failed(addArgs(forward)) || failed(addArgs(grad)) ||
        failed(addArgs(update)))
      return signalPassFailure();
    // The loss slots are f32 whatever the training dtype (runtime/gptrt.h):
    // an f64 loss is rounded once when it is written.
    Type lossType = RankedTensorType::get({}, Float32Type::get(&getContext()));
    auto toLossType = [&](OpBuilder &b, Location loc, Value loss) -> Value {
      if (loss.getType() == lossType)
        return loss;
      return gpt::CastOp::create(b, loc, lossType, loss);
    };
    if (failed(layout.add(forward.getLoc(), "loss", lossType)) ||
        failed(layout.add(forward.getLoc(), "eval_loss", lossType)))
      return signalPassFailure();
    for (unsigned i = 0; i < update.getNumResults(); ++i) {
      auto name = update.getResultAttrOfType<StringAttr>(i, "gpt.name");
      if (!name) {
        update.emitError() << "result " << i << " has no gpt.name";
        return signalPassFailure();
      }
      if (failed(layout.add(update.getLoc(), name.getValue(),
                            update.getResultTypes()[i], /*storage=*/true)))
        return signalPassFailure();
    }
    // Gradients: one per parameter, in argument order. One the ranks
    // average in a narrower type (`wire`) is kept in it when each step
    // writes its slot once (no accumulation): the all-reduce's result goes
    // there as it is, and the update reads it extended like a bf16
    // parameter.
    llvm::StringMap<Type> wires = reduceTypes(update);
    SmallVector<std::string> gradSlots;
    SmallVector<Type> gradWires;
    SmallVector<bool> gradInWire;
    for (unsigned i = 0; i < grad.getNumArguments(); ++i)
      if (grad.getArgAttr(i, "gpt.param")) {
        auto param = grad.getArgAttrOfType<StringAttr>(i, "gpt.name");
        if (!param) {
          grad.emitError() << "parameter argument " << i << " has no gpt.name";
          return signalPassFailure();
        }
        std::string name = "grad." + param.str();
        Type wire = wires.lookup(name);
        if (wire && !isa<FloatType>(wire)) {
          update.emitError()
              << "'" << gptc::kReduceTypeAttr << "' of " << name << " is "
              << wire << ": gradients are averaged in a float type";
          return signalPassFailure();
        }
        auto type = cast<RankedTensorType>(grad.getArgumentTypes()[i]);
        bool inWire =
            wire && ranks > 1 && gradAccum == 1 &&
            wire.getIntOrFloatBitWidth() < type.getElementTypeBitWidth();
        gradSlots.push_back(name);
        gradWires.push_back(wire);
        gradInWire.push_back(inWire);
        if (failed(layout.add(grad.getLoc(), name, type)))
          return signalPassFailure();
        if (inWire)
          layout.narrow(name, type.clone(wire));
      }
    if (grad.getNumResults() != gradSlots.size() + 1) {
      grad.emitError() << "expected " << gradSlots.size() + 1
                       << " results (the loss, then one gradient per "
                          "parameter), got "
                       << grad.getNumResults();
      return signalPassFailure();
    }
    // The sampling slots come last: the training slots keep their places.
    Type logitsType;
    if (logits) {
      auto positions = logits.getArgAttrOfType<StringAttr>(1, "gpt.name");
      auto result = logits.getNumResults() == 1
                        ? dyn_cast<RankedTensorType>(logits.getResultTypes()[0])
                        : RankedTensorType();
      if (!positions || positions.getValue() != "sample_pos" || !result ||
          result.getRank() != 2) {
        logits.emitError("@logits takes tokens and sample_pos first and "
                         "returns [batch, vocab] logits");
        return signalPassFailure();
      }
      logitsType = RankedTensorType::get(result.getShape(),
                                         Float32Type::get(&getContext()));
      if (failed(layout.add(logits.getLoc(), "sample_pos",
                            logits.getArgumentTypes()[1])) ||
          failed(layout.add(logits.getLoc(), "logits", logitsType)))
        return signalPassFailure();
    }
    layout.assignOffsets();

    OpBuilder b(module.getBodyRegion());
    b.setInsertionPointToEnd(module.getBody());
    auto arenaType = MemRefType::get({layout.bytes}, b.getI8Type());
    auto makeEntry = [&](StringRef name, Location loc) {
      auto fn = func::FuncOp::create(b, loc, name,
                                     b.getFunctionType({arenaType}, {}));
      // C entry point _mlir_ciface_<name>(gptc_arena_ref *).
      fn->setAttr("llvm.emit_c_interface", b.getUnitAttr());
      Block *entry = fn.addEntryBlock();
      OpBuilder body = OpBuilder::atBlockBegin(entry);
      func::ReturnOp::create(body, loc);
      return fn;
    };

    // gptc_grad_step: slot += value / grad_accum for the loss and grads;
    // without accumulation slot = value (no zeroing, no read of the slot).
    {
      func::FuncOp fn = makeEntry("gptc_grad_step", grad.getLoc());
      OpBuilder body(fn.getBody().front().getTerminator());
      EntryBuilder e(body, grad.getLoc(), fn.getArgument(0), layout);
      e.willWrite("loss");
      for (const std::string &slot : gradSlots)
        e.willWrite(slot);
      ValueRange results = e.call(grad);
      double scale = 1.0 / static_cast<double>(gradAccum);
      for (auto [i, result] : llvm::enumerate(results)) {
        StringRef slot =
            i == 0 ? StringRef("loss") : StringRef(gradSlots[i - 1]);
        Value value = i == 0 ? toLossType(body, grad.getLoc(), result) : result;
        value = i == 0 ? averageOverRanks(body, grad.getLoc(), value)
                       : averageOverRanks(body, grad.getLoc(), value,
                                          gradWires[i - 1], gradInWire[i - 1]);
        if (gradAccum == 1) {
          e.write(slot, value);
          continue;
        }
        Value scaled =
            scale == 1.0
                ? value
                : Value(gpt::MulScalarOp::create(body, grad.getLoc(), value,
                                                 body.getF64FloatAttr(scale)));
        Value sum =
            gpt::AddOp::create(body, grad.getLoc(), e.read(slot), scaled);
        e.write(slot, sum);
      }
    }
    // gptc_update_step: the optimizer, results to their slots.
    {
      func::FuncOp fn = makeEntry("gptc_update_step", update.getLoc());
      OpBuilder body(fn.getBody().front().getTerminator());
      EntryBuilder e(body, update.getLoc(), fn.getArgument(0), layout);
      for (unsigned i = 0; i < update.getNumResults(); ++i)
        e.willWrite(
            update.getResultAttrOfType<StringAttr>(i, "gpt.name").getValue());
      ValueRange results = e.call(update);
      for (auto [i, value] : llvm::enumerate(results))
        e.write(
            update.getResultAttrOfType<StringAttr>(i, "gpt.name").getValue(),
            value);
    }
    // gptc_eval_step: the loss of the forward function.
    {
      func::FuncOp fn = makeEntry("gptc_eval_step", forward.getLoc());
      OpBuilder body(fn.getBody().front().getTerminator());
      EntryBuilder e(body, forward.getLoc(), fn.getArgument(0), layout);
      Value loss = toLossType(body, forward.getLoc(), e.call(forward)[0]);
      e.write("eval_loss", averageOverRanks(body, forward.getLoc(), loss));
    }
    // gptc_logits_step: the logits at sample_pos, as f32.
    if (logits) {
      func::FuncOp fn = makeEntry("gptc_logits_step", logits.getLoc());
      OpBuilder body(fn.getBody().front().getTerminator());
      EntryBuilder e(body, logits.getLoc(), fn.getArgument(0), layout);
      Value z = e.call(logits)[0];
      if (z.getType() != logitsType)
        z = gpt::CastOp::create(body, logits.getLoc(), logitsType, z);
      e.write("logits", z);
      logits.setPrivate();
    }
    for (func::FuncOp fn : {forward, grad, update})
      fn.setPrivate();

    // Record the layout (for gptc-plan-buffers, the manifest and the
    // layout descriptor); the workspace is empty until buffers are planned.
    SmallVector<gpt::ArenaSlotAttr> slots;
    for (auto &[name, slot] : layout.slots)
      slots.push_back(gpt::ArenaSlotAttr::get(
          &getContext(), b.getStringAttr(name), slot.offset, slot.type));
    auto arena = gpt::ArenaLayoutAttr::getChecked(
        [&] { return module.emitError(); }, &getContext(), layout.bytes,
        layout.bytes, int64_t(0), ArrayRef<gpt::ArenaSlotAttr>(slots));
    if (!arena)
      return signalPassFailure();
    module->setAttr(gpt::ArenaLayoutAttr::kAttrName, arena);
  }
};

} // namespace
