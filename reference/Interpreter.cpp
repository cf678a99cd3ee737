//===- Interpreter.cpp - Reference interpreter of gpt IR in f64 -----------===//
//
// Walks the ops of a single-block function in order and asks each for its
// results through ReferenceEvalOpInterface; this file knows no gpt op by
// name. `evaluate` moves a value's tensor (rather than copying it) into its
// last user and drops it afterwards, so the peak memory is that of the live
// values; CachedEvaluation keeps them all instead.
//
//===----------------------------------------------------------------------===//

#include "reference/Interpreter.h"

#include "reference/ReferenceInterfaces.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

namespace gptc::ref {

SmallVector<int64_t, 4> shapeOf(Type type) {
  if (auto t = dyn_cast<RankedTensorType>(type))
    return SmallVector<int64_t, 4>(t.getShape());
  return {};
}

namespace {

std::string shapeStr(ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

/// Checks the function and its arguments.
LogicalResult checkSignature(func::FuncOp fn, ArrayRef<HostTensor> args) {
  if (!fn.getBody().hasOneBlock())
    return fn.emitError("reference interpreter: expected a function with one "
                        "block");
  Block &body = fn.getBody().front();
  if (args.size() != body.getNumArguments())
    return fn.emitError("reference interpreter: expected ")
           << body.getNumArguments() << " arguments, got " << args.size();
  for (auto [arg, value] : llvm::zip_equal(body.getArguments(), args)) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type || !type.hasStaticShape())
      return fn.emitError("reference interpreter: argument #")
             << arg.getArgNumber() << " is not a static ranked tensor";
    if (ArrayRef<int64_t>(value.shape) != type.getShape() ||
        value.size() != type.getNumElements())
      return fn.emitError("reference interpreter: argument #")
             << arg.getArgNumber() << " has shape " << value.shapeStr()
             << ", expected " << shapeStr(type.getShape());
  }
  return success();
}

/// Runs one op (not the terminator) on its operand values.
LogicalResult runOp(Operation &op, ArrayRef<HostTensor> operands,
                    SmallVectorImpl<HostTensor> &results) {
  auto iface = dyn_cast<ReferenceEvalOpInterface>(op);
  if (!iface)
    return op.emitOpError("has no reference semantics (no "
                          "ReferenceEvalOpInterface; was "
                          "registerReferenceExternalModels called?)");
  if (failed(iface.evaluate(operands, results)))
    return failure();
  if (results.size() != op.getNumResults())
    return op.emitOpError("reference evaluation produced ")
           << results.size() << " results, expected " << op.getNumResults();
  for (auto [value, tensor] : llvm::zip_equal(op.getResults(), results)) {
    SmallVector<int64_t, 4> expected = shapeOf(value.getType());
    if (ArrayRef<int64_t>(expected) != ArrayRef<int64_t>(tensor.shape) ||
        tensor.size() != numElementsOf(expected))
      return op.emitOpError("reference evaluation produced shape ")
             << tensor.shapeStr() << " for result #"
             << cast<OpResult>(value).getResultNumber() << ", expected "
             << shapeStr(expected);
  }
  return success();
}

InFlightDiagnostic undefinedOperand(Operation &op, unsigned i) {
  return op.emitOpError("reference interpreter: operand #")
         << i << " is not defined in the function body";
}

InFlightDiagnostic noReturn(func::FuncOp fn) {
  return fn.emitError("reference interpreter: the function body has no "
                      "func.return");
}

} // namespace

FailureOr<SmallVector<HostTensor>> evaluate(func::FuncOp fn,
                                            ArrayRef<HostTensor> args) {
  if (failed(checkSignature(fn, args)))
    return failure();
  Block &body = fn.getBody().front();
  DenseMap<Value, HostTensor> env;
  for (auto [arg, value] : llvm::zip_equal(body.getArguments(), args))
    env[arg] = value;

  // The last op that reads each value: it may take the tensor by move.
  DenseMap<Value, Operation *> lastUser;
  for (Operation &op : body)
    for (Value v : op.getOperands())
      lastUser[v] = &op;

  for (Operation &op : body) {
    SmallVector<HostTensor> operands;
    for (unsigned i = 0, e = op.getNumOperands(); i < e; ++i) {
      Value v = op.getOperand(i);
      auto it = env.find(v);
      if (it == env.end())
        return undefinedOperand(op, i), failure();
      bool usedLater =
          lastUser.lookup(v) != &op ||
          llvm::is_contained(op.getOperands().drop_front(i + 1), v);
      if (usedLater) {
        operands.push_back(it->second);
      } else {
        operands.push_back(std::move(it->second));
        env.erase(it);
      }
    }
    if (isa<func::ReturnOp>(op))
      return SmallVector<HostTensor>(std::move(operands));
    SmallVector<HostTensor> results;
    if (failed(runOp(op, operands, results)))
      return failure();
    for (auto [value, tensor] : llvm::zip_equal(op.getResults(), results))
      if (!value.use_empty())
        env[value] = std::move(tensor);
  }
  return noReturn(fn), failure();
}

FailureOr<SmallVector<HostTensor>> evaluate(ModuleOp module, StringRef name,
                                            ArrayRef<HostTensor> args) {
  auto fn = module.lookupSymbol<func::FuncOp>(name);
  if (!fn)
    return module.emitError("reference interpreter: no function named '")
               << name << "'",
           failure();
  return evaluate(fn, args);
}

FailureOr<CachedEvaluation>
CachedEvaluation::create(func::FuncOp fn, ArrayRef<HostTensor> args) {
  if (failed(checkSignature(fn, args)))
    return failure();
  CachedEvaluation eval;
  eval.fn = fn;
  Block &body = fn.getBody().front();
  for (auto [arg, value] : llvm::zip_equal(body.getArguments(), args))
    eval.values[arg] = value;
  for (Operation &op : body)
    for (Value v : op.getOperands())
      eval.lastUser[v] = &op;
  for (Operation &op : body) {
    SmallVector<HostTensor> operands;
    for (unsigned i = 0, e = op.getNumOperands(); i < e; ++i) {
      auto it = eval.values.find(op.getOperand(i));
      if (it == eval.values.end())
        return undefinedOperand(op, i), failure();
      operands.push_back(it->second);
    }
    if (isa<func::ReturnOp>(op)) {
      eval.outputs = std::move(operands);
      return eval;
    }
    SmallVector<HostTensor> results;
    if (failed(runOp(op, operands, results)))
      return failure();
    for (auto [value, tensor] : llvm::zip_equal(op.getResults(), results))
      eval.values[value] = std::move(tensor);
  }
  return noReturn(fn), failure();
}

FailureOr<SmallVector<HostTensor>>
CachedEvaluation::evaluateWith(unsigned index, const HostTensor &value) const {
  Block &body = fn.getBody().front();
  if (index >= body.getNumArguments())
    return fn.emitError("reference interpreter: no argument #") << index,
           failure();
  BlockArgument arg = body.getArgument(index);
  if (ArrayRef<int64_t>(value.shape) !=
          ArrayRef<int64_t>(shapeOf(arg.getType())) ||
      value.size() != numElementsOf(value.shape))
    return fn.emitError("reference interpreter: argument #")
               << index << " has shape " << value.shapeStr() << ", expected "
               << shapeStr(shapeOf(arg.getType())),
           failure();
  // Values that differ from the cached evaluation.
  DenseMap<Value, HostTensor> changed;
  changed[arg] = value;
  auto lookup = [&](Value v) -> const HostTensor & {
    auto it = changed.find(v);
    return it != changed.end() ? it->second : values.find(v)->second;
  };
  for (Operation &op : body) {
    if (isa<func::ReturnOp>(op)) {
      SmallVector<HostTensor> outs;
      for (Value v : op.getOperands())
        outs.push_back(lookup(v));
      return outs;
    }
    if (llvm::none_of(op.getOperands(),
                      [&](Value v) { return changed.count(v); }))
      continue;
    // Recomputed values are moved into their last user; cached ones are
    // copied.
    SmallVector<HostTensor> operands;
    for (unsigned i = 0, e = op.getNumOperands(); i < e; ++i) {
      Value v = op.getOperand(i);
      auto it = changed.find(v);
      if (it != changed.end() && v != arg && lastUser.lookup(v) == &op &&
          !llvm::is_contained(op.getOperands().drop_front(i + 1), v)) {
        operands.push_back(std::move(it->second));
        changed.erase(it);
      } else {
        operands.push_back(lookup(v));
      }
    }
    SmallVector<HostTensor> results;
    if (failed(runOp(op, operands, results)))
      return failure();
    for (auto [v, tensor] : llvm::zip_equal(op.getResults(), results))
      changed[v] = std::move(tensor);
  }
  return noReturn(fn), failure();
}

} // namespace gptc::ref
