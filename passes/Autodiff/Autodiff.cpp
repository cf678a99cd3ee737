//===- Autodiff.cpp - Reverse-mode autodiff of gpt functions --------------===//
//
// forward(args) -> loss   =>   forward_grad(args) -> (loss, dloss/dparams)
//
// The gradient function is a clone of the forward function with the
// backward graph appended before its return. Dispatch is through
// DifferentiableOpInterface: this file knows no op by name.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialects/GPT/GPTVJPUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#define DEBUG_TYPE "gptc-autodiff"

namespace gptc {
#define GEN_PASS_DEF_AUTODIFFPASS
#include "passes/Passes.h.inc"
} // namespace gptc

using namespace mlir;
using namespace mlir::gpt;

namespace {

bool isFloatTensor(Value v) {
  return isa<FloatType>(getElementTypeOrSelf(v.getType()));
}

/// Values that depend on a parameter (the only ones worth differentiating).
llvm::DenseSet<Value> findActiveValues(func::FuncOp fn) {
  llvm::DenseSet<Value> active;
  for (BlockArgument arg : fn.getArguments())
    if (fn.getArgAttr(arg.getArgNumber(), "gpt.param"))
      active.insert(arg);
  fn.walk([&](Operation *op) {
    if (llvm::any_of(op->getOperands(),
                     [&](Value v) { return active.contains(v); }))
      for (Value r : op->getResults())
        if (isFloatTensor(r))
          active.insert(r);
  });
  return active;
}

/// Builds the backward graph of `fn` (a clone) at the end of its body and
/// returns the parameter gradients in argument order.
FailureOr<SmallVector<Value>> buildBackward(func::FuncOp fn,
                                            func::ReturnOp ret) {
  llvm::DenseSet<Value> active = findActiveValues(fn);
  llvm::DenseMap<Value, Value> grads;
  OpBuilder b(ret);
  Value loss = ret.getOperand(0);
  auto lossType = dyn_cast<RankedTensorType>(loss.getType());
  if (!lossType || lossType.getRank() != 0 || !isFloatTensor(loss))
    return fn.emitError("the function must return a 0-d float loss tensor"),
           failure();

  auto accumulate = [&](Value v, Value g) {
    auto [it, inserted] = grads.try_emplace(v, g);
    if (!inserted)
      it->second = AddOp::create(b, g.getLoc(), it->second, g);
  };
  grads[loss] = ConstantOp::create(
      b, ret.getLoc(),
      cast<ElementsAttr>(DenseElementsAttr::get(
          lossType, b.getFloatAttr(lossType.getElementType(), 1.0))));

  // Walk the forward ops (everything before the return) backwards.
  SmallVector<Operation *> forwardOps;
  for (Operation &op : fn.getBody().front().without_terminator())
    forwardOps.push_back(&op);
  for (Operation *op : llvm::reverse(forwardOps)) {
    SmallVector<Value> resultGrads;
    bool any = false;
    for (Value r : op->getResults()) {
      Value g = active.contains(r) ? grads.lookup(r) : Value();
      resultGrads.push_back(g);
      any |= static_cast<bool>(g);
    }
    if (!any)
      continue;
    auto diff = dyn_cast<DifferentiableOpInterface>(op);
    if (!diff)
      return op->emitOpError("is not differentiable, but the loss depends on "
                             "it through a parameter"),
             failure();
    // Results that do not reach the loss get a zero gradient for ops with
    // one result; multi-result ops handle null entries themselves.
    if (op->getNumResults() == 1 && !resultGrads[0])
      continue;
    SmallVector<Value> operandGrads;
    b.setInsertionPoint(ret);
    if (failed(diff.buildVJP(b, resultGrads, operandGrads)))
      return failure();
    if (operandGrads.size() != op->getNumOperands())
      return op->emitOpError("VJP returned ")
                 << operandGrads.size() << " gradients for "
                 << op->getNumOperands() << " operands",
             failure();
    for (auto [operand, g] : llvm::zip_equal(op->getOperands(), operandGrads))
      if (g && active.contains(operand))
        accumulate(operand, g);
  }

  SmallVector<Value> paramGrads;
  b.setInsertionPoint(ret);
  for (BlockArgument arg : fn.getArguments()) {
    if (!fn.getArgAttr(arg.getArgNumber(), "gpt.param"))
      continue;
    Value g = grads.lookup(arg);
    paramGrads.push_back(g ? g : vjp::zerosLike(b, fn.getLoc(), arg.getType()));
  }
  return paramGrads;
}

struct AutodiffPass : gptc::impl::AutodiffPassBase<AutodiffPass> {
  using AutodiffPassBase::AutodiffPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto forward = module.lookupSymbol<func::FuncOp>(function);
    if (!forward) {
      module.emitError() << "gptc-autodiff: no function named '" << function
                         << "'";
      return signalPassFailure();
    }
    if (forward.getNumResults() != 1 || !forward.getBody().hasOneBlock()) {
      forward.emitError("gptc-autodiff: expected one block and one result "
                        "(the loss)");
      return signalPassFailure();
    }
    OpBuilder b(module.getContext());
    b.setInsertionPointAfter(forward);
    auto gradFn = cast<func::FuncOp>(b.clone(*forward));
    gradFn.setSymName(function + "_grad");
    auto ret = cast<func::ReturnOp>(gradFn.getBody().front().getTerminator());

    FailureOr<SmallVector<Value>> paramGrads = buildBackward(gradFn, ret);
    if (failed(paramGrads))
      return signalPassFailure();

    SmallVector<Value> results = {ret.getOperand(0)};
    results.append(paramGrads->begin(), paramGrads->end());
    b.setInsertionPoint(ret);
    func::ReturnOp::create(b, ret.getLoc(), results);
    ret.erase();
    SmallVector<Type> resultTypes;
    for (Value v : results)
      resultTypes.push_back(v.getType());
    gradFn.setFunctionType(
        b.getFunctionType(gradFn.getArgumentTypes(), resultTypes));
  }
};

} // namespace
