//===- SpecKey.h - The spec key an op was built from ------------*- C++ -*-===//
//
// MLIRGen locates every op at the YAML key that configured it, as a NameLoc
// ("blocks.0.attn.sdpa") around the file location; later ops keep it inside
// call-site and fused locations. gptc-name-kernels names kernels after it,
// `--stats` prints it as a kernel's origin.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_PASSES_SPECKEY_H
#define GPTC_PASSES_SPECKEY_H

#include "mlir/IR/Location.h"

namespace gptc {

/// The first name in `loc` ("" if it has none).
inline llvm::StringRef specKeyOf(mlir::Location loc) {
  llvm::StringRef key;
  loc->walk([&](mlir::Location l) {
    if (auto name = llvm::dyn_cast<mlir::NameLoc>(l)) {
      key = name.getName().strref();
      return mlir::WalkResult::interrupt();
    }
    return mlir::WalkResult::advance();
  });
  return key;
}

} // namespace gptc

#endif // GPTC_PASSES_SPECKEY_H
