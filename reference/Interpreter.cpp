//===- Interpreter.cpp - Reference interpreter of gpt IR in f64 -----------===//
//
// Walks the ops of a single-block function in order and asks each for its
// results through ReferenceEvalOpInterface; this file knows no gpt op by
// name. A value's tensor is moved (not copied) into its last user and
// dropped afterwards, so the peak memory is that of the live values.
//
//===----------------------------------------------------------------------===//

#include "reference/Interpreter.h"

#include "reference/ReferenceInterfaces.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseMap.h"

using namespace mlir;

namespace gptc::ref {

SmallVector<int64_t, 4> shapeOf(Type type) {
  if (auto t = dyn_cast<RankedTensorType>(type))
    return SmallVector<int64_t, 4>(t.getShape());
  return {};
}

static std::string shapeStr(ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

FailureOr<SmallVector<HostTensor>> evaluate(func::FuncOp fn,
                                            ArrayRef<HostTensor> args) {
  if (!fn.getBody().hasOneBlock())
    return fn.emitError("reference interpreter: expected a function with one "
                        "block"),
           failure();
  Block &body = fn.getBody().front();
  if (args.size() != body.getNumArguments())
    return fn.emitError("reference interpreter: expected ")
               << body.getNumArguments() << " arguments, got " << args.size(),
           failure();

  DenseMap<Value, HostTensor> env;
  for (auto [arg, value] : llvm::zip_equal(body.getArguments(), args)) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type || !type.hasStaticShape())
      return fn.emitError("reference interpreter: argument #")
                 << arg.getArgNumber() << " is not a static ranked tensor",
             failure();
    if (ArrayRef<int64_t>(value.shape) != type.getShape() ||
        value.size() != type.getNumElements())
      return fn.emitError("reference interpreter: argument #")
                 << arg.getArgNumber() << " has shape " << value.shapeStr()
                 << ", expected " << shapeStr(type.getShape()),
             failure();
    env[arg] = value;
  }

  // The last op that reads each value: it may take the tensor by move.
  DenseMap<Value, Operation *> lastUser;
  for (Operation &op : body)
    for (Value v : op.getOperands())
      lastUser[v] = &op;

  auto fetch = [&](Operation *op, unsigned i,
                   SmallVectorImpl<HostTensor> &operands) -> LogicalResult {
    Value v = op->getOperand(i);
    auto it = env.find(v);
    if (it == env.end())
      return op->emitOpError("reference interpreter: operand #")
             << i << " is not defined in the function body";
    bool usedLater = lastUser.lookup(v) != op ||
                     llvm::is_contained(op->getOperands().drop_front(i + 1), v);
    if (usedLater) {
      operands.push_back(it->second);
    } else {
      operands.push_back(std::move(it->second));
      env.erase(it);
    }
    return success();
  };

  for (Operation &op : body) {
    SmallVector<HostTensor> operands;
    for (unsigned i = 0, e = op.getNumOperands(); i < e; ++i)
      if (failed(fetch(&op, i, operands)))
        return failure();

    if (auto ret = dyn_cast<func::ReturnOp>(op))
      return SmallVector<HostTensor>(std::move(operands));

    auto iface = dyn_cast<ReferenceEvalOpInterface>(op);
    if (!iface)
      return op.emitOpError("has no reference semantics (no "
                            "ReferenceEvalOpInterface; was "
                            "registerReferenceExternalModels called?)"),
             failure();
    SmallVector<HostTensor> results;
    if (failed(iface.evaluate(operands, results)))
      return failure();
    if (results.size() != op.getNumResults())
      return op.emitOpError("reference evaluation produced ")
                 << results.size() << " results, expected "
                 << op.getNumResults(),
             failure();
    for (auto [value, tensor] : llvm::zip_equal(op.getResults(), results)) {
      SmallVector<int64_t, 4> expected = shapeOf(value.getType());
      if (ArrayRef<int64_t>(expected) != ArrayRef<int64_t>(tensor.shape) ||
          tensor.size() != numElementsOf(expected))
        return op.emitOpError("reference evaluation produced shape ")
                   << tensor.shapeStr() << " for result #"
                   << cast<OpResult>(value).getResultNumber() << ", expected "
                   << shapeStr(expected),
               failure();
      if (!value.use_empty())
        env[value] = std::move(tensor);
    }
  }
  return fn.emitError("reference interpreter: the function body has no "
                      "func.return"),
         failure();
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

} // namespace gptc::ref
