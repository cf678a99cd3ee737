//===- OutlineKernels.cpp - One function per distinct CPU kernel ----------===//
//
// func.func @gptc_grad_step(...) {
//   scf.parallel (%i) = (%c0) to (%c64) step (%c1) { ... %a ... %b ... }
//   ... the same nest on other buffers ...
// }
//   =>
// func.func @gptc_grad_step(...) {
//   call @gptc_kernel_0(%a, %b)
//   call @gptc_kernel_0(%a2, %b2)
// }
// func.func private @gptc_kernel_0(%a: memref<...>, %b: memref<...>)
//     attributes {passthrough = ["noinline"]} {
//   scf.parallel (%i) = (%c0) to (%c64) step (%c1) { ... }
// }
//
// See the pass description in passes/Passes.td.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

namespace gptc {
#define GEN_PASS_DEF_OUTLINEKERNELSPASS
#include "passes/Passes.h.inc"
} // namespace gptc

using namespace mlir;

namespace {

/// Values a kernel computes for itself rather than taking as arguments:
/// constants (loop bounds, strides and literals stay known to LLVM) and
/// the addresses of constant globals.
bool isRematerialisable(Value v) {
  Operation *def = v.getDefiningOp();
  return def && (def->hasTrait<OpTrait::ConstantLike>() ||
                 isa<memref::GetGlobalOp>(def));
}

/// The type a kernel takes `v` as: a view at a static offset into a larger
/// buffer (a slice of a stacked tensor, one layer's rows) is taken at a
/// dynamic offset, so that the kernels of every slice share one function.
/// Shapes and strides stay static.
Type argumentType(Value v, scf::ParallelOp nest) {
  auto type = dyn_cast<MemRefType>(v.getType());
  if (!type)
    return v.getType();
  // Only where the kernel just loads and stores through the view: other
  // ops' result types would follow the layout.
  for (OpOperand &use : v.getUses())
    if (nest->isAncestor(use.getOwner()) &&
        !isa<memref::LoadOp, memref::StoreOp>(use.getOwner()))
      return type;
  auto strided = dyn_cast<StridedLayoutAttr>(type.getLayout());
  if (!strided || ShapedType::isDynamic(strided.getOffset()))
    return type;
  auto layout = StridedLayoutAttr::get(type.getContext(), ShapedType::kDynamic,
                                       strided.getStrides());
  return MemRefType::get(type.getShape(), type.getElementType(), layout,
                         type.getMemorySpace());
}

/// What a kernel's code depends on: its type and its body, printed
/// without its name or locations.
std::string kernelKey(func::FuncOp kernel) {
  std::string key;
  llvm::raw_string_ostream os(key);
  OpPrintingFlags flags;
  flags.enableDebugInfo(false).useLocalScope();
  os << kernel.getFunctionType() << "\n";
  kernel.getBody().front().walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op->getParentOp() == kernel)
      op->print(os, flags);
  });
  return key;
}

struct OutlineKernelsPass
    : gptc::impl::OutlineKernelsPassBase<OutlineKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> hosts;
    for (auto fn : module.getOps<func::FuncOp>())
      if (!fn.isDeclaration())
        hosts.push_back(fn);
    for (func::FuncOp host : hosts) {
      SmallVector<scf::ParallelOp> nests;
      host.walk<WalkOrder::PreOrder>([&](scf::ParallelOp nest) {
        nests.push_back(nest);
        return WalkResult::skip();
      });
      for (scf::ParallelOp nest : nests)
        outline(nest, module);
    }
    numDistinct = kernelByKey.size();
  }

  /// Replaces `nest` by a call of the kernel function with its body,
  /// created unless an identical one exists.
  void outline(scf::ParallelOp nest, ModuleOp module) {
    ++numKernels;
    llvm::SetVector<Value> captured;
    for (Value v : nest->getOperands())
      captured.insert(v);
    getUsedValuesDefinedAbove(nest->getRegions(), captured);
    SmallVector<Value> arguments;
    for (Value v : captured)
      if (!isRematerialisable(v))
        arguments.push_back(v);

    OpBuilder b(module.getContext());
    SmallVector<Type> argumentTypes;
    for (Value v : arguments)
      argumentTypes.push_back(argumentType(v, nest));
    b.setInsertionPointToEnd(module.getBody());
    auto type = b.getFunctionType(argumentTypes, nest->getResultTypes());
    auto kernel = func::FuncOp::create(
        b, nest.getLoc(), "gptc_kernel_" + std::to_string(kernelByKey.size()),
        type);
    kernel.setPrivate();
    // LLVM's inliner would put small kernels back into the step.
    kernel->setAttr("passthrough", b.getStrArrayAttr({"noinline"}));
    Block *entry = kernel.addEntryBlock();
    b.setInsertionPointToStart(entry);
    IRMapping mapping;
    for (auto [value, arg] : llvm::zip(arguments, entry->getArguments()))
      mapping.map(value, arg);
    for (Value v : captured)
      if (isRematerialisable(v))
        mapping.map(v, b.clone(*v.getDefiningOp())->getResult(0));
    Operation *body = b.clone(*nest, mapping);
    func::ReturnOp::create(b, nest.getLoc(), body->getResults());

    auto [it, inserted] = kernelByKey.try_emplace(kernelKey(kernel), kernel);
    if (!inserted)
      kernel.erase();
    b.setInsertionPoint(nest);
    SmallVector<Value> operands;
    for (auto [value, type] : llvm::zip(arguments, argumentTypes))
      operands.push_back(
          value.getType() == type
              ? value
              : memref::CastOp::create(b, nest.getLoc(), type, value));
    auto call = func::CallOp::create(b, nest.getLoc(), it->second, operands);
    nest->replaceAllUsesWith(call.getResults());
    nest.erase();
  }

  std::map<std::string, func::FuncOp> kernelByKey;
};

} // namespace
