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
// See the pass description in passes/CPU/CPUPasses.td.
//
//===----------------------------------------------------------------------===//

#include "passes/CPU/BarePointers.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
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

/// True if every use of `v` inside `nest` loads or stores through it: the
/// kernel may then take `v` at another layout or rebuild it.
bool onlyLoadedAndStored(Value v, scf::ParallelOp nest) {
  return llvm::all_of(v.getUses(), [&](OpOperand &use) {
    return !nest->isAncestor(use.getOwner()) ||
           isa<memref::LoadOp, memref::StoreOp>(use.getOwner());
  });
}

/// The type a kernel takes `v` as: a view at a static offset into a larger
/// buffer (a slice of a stacked tensor, one layer's rows) is taken at a
/// dynamic offset, so that the kernels of every slice share one function.
/// Shapes and strides stay static.
Type argumentType(Value v, scf::ParallelOp nest) {
  auto type = dyn_cast<MemRefType>(v.getType());
  // Only where the kernel just loads and stores through the view: other
  // ops' result types would follow the layout.
  if (!type || !onlyLoadedAndStored(v, nest))
    return v.getType();
  auto strided = dyn_cast<StridedLayoutAttr>(type.getLayout());
  if (!strided || ShapedType::isDynamic(strided.getOffset()))
    return type;
  auto layout = StridedLayoutAttr::get(type.getContext(), ShapedType::kDynamic,
                                       strided.getStrides());
  return MemRefType::get(type.getShape(), type.getElementType(), layout,
                         type.getMemorySpace());
}

/// Where a view of a byte buffer (the step's arena) starts: `base` is the
/// buffer, `shift` the byte shift of its memref.view and `bytes` the
/// view's static offset in bytes past it (subviews and reshapes of the
/// memref.view keep its aligned pointer and add to the layout's offset).
struct ArenaAddress {
  Value base;
  Value shift;
  int64_t bytes;
};

std::optional<ArenaAddress> arenaAddress(Value v) {
  auto type = dyn_cast<MemRefType>(v.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (!type || !gptc::hasStaticLayout(type, strides, offset) ||
      !type.getElementType().isIntOrFloat() ||
      type.getElementType().getIntOrFloatBitWidth() % 8 != 0)
    return std::nullopt;
  int64_t bytes = offset * (type.getElementType().getIntOrFloatBitWidth() / 8);
  Operation *def = v.getDefiningOp();
  while (def && isa<memref::SubViewOp, memref::ExpandShapeOp,
                    memref::CollapseShapeOp, memref::CastOp>(def))
    def = def->getOperand(0).getDefiningOp();
  auto root = dyn_cast_or_null<memref::ViewOp>(def);
  if (!root || !root.getSizes().empty() ||
      !root.getSource().getType().hasStaticShape())
    return std::nullopt;
  return ArenaAddress{root.getSource(), root.getByteShift(), bytes};
}

/// In a kernel: the view of `type` at byte `shift` of `base`, at offset 0
/// (the shift carries the offset), as memref.view and, for a strided view,
/// memref.reinterpret_cast of the bytes it spans.
Value rebuildView(OpBuilder &b, Location loc, Value base, Value shift,
                  MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  (void)type.getStridesAndOffset(strides, offset);
  ArrayRef<int64_t> shape = type.getShape();
  SmallVector<int64_t> rowMajor(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    rowMajor[d] = rowMajor[d + 1] * shape[d + 1];
  if (strides == rowMajor || type.getNumElements() == 0)
    return memref::ViewOp::create(b, loc,
                                  MemRefType::get(shape, type.getElementType()),
                                  base, shift, ValueRange());
  int64_t extent = 1;
  for (auto [size, stride] : llvm::zip(shape, strides))
    extent += (size - 1) * stride;
  Value span = memref::ViewOp::create(
      b, loc, MemRefType::get({extent}, type.getElementType()), base, shift,
      ValueRange());
  auto strided =
      MemRefType::get(shape, type.getElementType(),
                      StridedLayoutAttr::get(type.getContext(), 0, strides));
  return memref::ReinterpretCastOp::create(b, loc, strided, span, 0, shape,
                                           strides);
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

/// A captured value as the kernel takes it: as itself (its argument
/// `index`), or as an arena view (its buffer's argument `base` and its
/// byte shift's argument `index`).
struct KernelArgument {
  Value value;
  unsigned index;
  std::optional<unsigned> base;
};

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
      constants.clear();
      for (scf::ParallelOp nest : nests)
        outline(nest, module);
      // The views only the kernels used are dead now.
      IRRewriter rewriter(host.getContext());
      (void)runRegionDCE(rewriter, host->getRegions());
    }
    numDistinct = kernelByKey.size();
  }

  /// An index constant at the start of `host`, one per value.
  Value indexConstant(func::FuncOp host, int64_t value) {
    Value &constant = constants[value];
    if (!constant) {
      OpBuilder b = OpBuilder::atBlockBegin(&host.getBody().front());
      constant = arith::ConstantIndexOp::create(b, host.getLoc(), value);
    }
    return constant;
  }

  /// The byte shift of an arena view, at the call.
  Value byteShift(OpBuilder &b, Location loc, func::FuncOp host,
                  const ArenaAddress &address) {
    if (std::optional<int64_t> shift = getConstantIntValue(address.shift))
      return indexConstant(host, *shift + address.bytes);
    if (address.bytes == 0)
      return address.shift;
    return arith::AddIOp::create(b, loc, address.shift,
                                 indexConstant(host, address.bytes));
  }

  /// Replaces `nest` by a call of the kernel function with its body,
  /// created unless an identical one exists.
  void outline(scf::ParallelOp nest, ModuleOp module) {
    ++numKernels;
    auto host = nest->getParentOfType<func::FuncOp>();
    llvm::SetVector<Value> captured;
    for (Value v : nest->getOperands())
      captured.insert(v);
    getUsedValuesDefinedAbove(nest->getRegions(), captured);

    // What the kernel takes: an arena view as its byte buffer (once per
    // buffer) and its byte shift, so that every layer's call shares the
    // kernel and passes a pointer and integers; other values as they are.
    OpBuilder b(module.getContext());
    b.setInsertionPoint(nest);
    SmallVector<Value> operands;
    SmallVector<Type> argumentTypes;
    SmallVector<KernelArgument> kernelArguments;
    llvm::DenseMap<Value, unsigned> baseArgument;
    auto add = [&](Value operand, Type type) {
      operands.push_back(operand);
      argumentTypes.push_back(type);
      return static_cast<unsigned>(operands.size() - 1);
    };
    for (Value v : captured) {
      if (isRematerialisable(v))
        continue;
      std::optional<ArenaAddress> address =
          onlyLoadedAndStored(v, nest) ? arenaAddress(v) : std::nullopt;
      if (!address) {
        Type type = argumentType(v, nest);
        Value operand = v.getType() == type
                            ? v
                            : memref::CastOp::create(b, nest.getLoc(), type, v);
        kernelArguments.push_back({v, add(operand, type), std::nullopt});
        continue;
      }
      auto [base, added] =
          baseArgument.try_emplace(address->base, operands.size());
      if (added)
        add(address->base, address->base.getType());
      unsigned shift =
          add(byteShift(b, nest.getLoc(), host, *address), b.getIndexType());
      kernelArguments.push_back({v, shift, base->second});
    }

    b.setInsertionPointToEnd(module.getBody());
    auto type = b.getFunctionType(argumentTypes, nest->getResultTypes());
    auto kernel = func::FuncOp::create(
        b, nest.getLoc(), "gptc_kernel_" + std::to_string(kernelByKey.size()),
        type);
    kernel.setPrivate();
    // LLVM's inliner would put small kernels back into the step.
    kernel->setAttr("passthrough", b.getStrArrayAttr({"noinline"}));
    // Buffers as bare pointers (convert-func-to-llvm): a call passes one
    // pointer per buffer, not the fields of a memref descriptor.
    if (llvm::all_of(argumentTypes, gptc::passesAsBarePointer))
      kernel->setAttr("llvm.bareptr", b.getUnitAttr());
    Block *entry = kernel.addEntryBlock();
    b.setInsertionPointToStart(entry);
    IRMapping mapping;
    for (const KernelArgument &arg : kernelArguments)
      mapping.map(arg.value,
                  arg.base ? rebuildView(b, nest.getLoc(),
                                         entry->getArgument(*arg.base),
                                         entry->getArgument(arg.index),
                                         cast<MemRefType>(arg.value.getType()))
                           : entry->getArgument(arg.index));
    for (Value v : captured)
      if (isRematerialisable(v))
        mapping.map(v, b.clone(*v.getDefiningOp())->getResult(0));
    Operation *body = b.clone(*nest, mapping);
    func::ReturnOp::create(b, nest.getLoc(), body->getResults());

    auto [it, inserted] = kernelByKey.try_emplace(kernelKey(kernel), kernel);
    if (!inserted)
      kernel.erase();
    b.setInsertionPoint(nest);
    auto call = func::CallOp::create(b, nest.getLoc(), it->second, operands);
    nest->replaceAllUsesWith(call.getResults());
    nest.erase();
  }

  std::map<std::string, func::FuncOp> kernelByKey;
  llvm::DenseMap<int64_t, Value> constants;
};

} // namespace
