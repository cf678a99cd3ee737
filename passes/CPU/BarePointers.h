//===- BarePointers.h - Memrefs a call may pass as bare pointers -*- C++
//-*-===//
//
// gptc-outline-kernels and gptc-split-host mark the functions they make
// `llvm.bareptr` (convert-func-to-llvm then passes each memref as its
// aligned pointer, not as a descriptor's fields) when every memref they
// take has a layout known at compile time.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_PASSES_CPU_BAREPOINTERS_H
#define GPTC_PASSES_CPU_BAREPOINTERS_H

#include "mlir/IR/BuiltinTypes.h"

namespace gptc {

/// A static shape, strides and offset (returned in `strides`, `offset`):
/// what a bare pointer can carry.
inline bool hasStaticLayout(mlir::MemRefType type,
                            llvm::SmallVectorImpl<int64_t> &strides,
                            int64_t &offset) {
  return type.hasStaticShape() &&
         mlir::succeeded(type.getStridesAndOffset(strides, offset)) &&
         !mlir::ShapedType::isDynamic(offset) &&
         llvm::none_of(strides, mlir::ShapedType::isDynamic);
}

/// True for a memref of static layout, and for any other type.
inline bool passesAsBarePointer(mlir::Type type) {
  auto memref = llvm::dyn_cast<mlir::MemRefType>(type);
  llvm::SmallVector<int64_t> strides;
  int64_t offset;
  return !memref || hasStaticLayout(memref, strides, offset);
}

} // namespace gptc

#endif // GPTC_PASSES_CPU_BAREPOINTERS_H
