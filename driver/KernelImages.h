//===- KernelImages.h - Every kernel as a fatbinary of cubins and PTX -*- C++
//-*-===//
//
// buildPTXPipeline leaves one gpu.binary per distinct kernel holding its PTX
// for every chip of kPTXChips. packKernelImages assembles each PTX with
// ptxas into a cubin for its chip and packs cubins and PTX into one
// fatbinary (the CUDA toolkit's `fatbinary`), the image step.so loads with
// cuModuleLoadData: a driver runs the cubin that matches its device and
// JIT-compiles the newest PTX not newer than the device otherwise, as it
// does for nvcc's output.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_DRIVER_KERNELIMAGES_H
#define GPTC_DRIVER_KERNELIMAGES_H

#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace gptc {

/// What packKernelImages did.
struct KernelImageCounts {
  size_t kernels = 0;     ///< gpu.binary ops packed
  size_t cubins = 0;      ///< ptxas runs
  size_t fatbinBytes = 0; ///< all images
};

/// Replaces the PTX objects of every gpu.binary of `module` by one
/// fatbinary object (cubin and PTX for each chip). ptxas and fatbinary run
/// `jobs` at a time (0: one per core). False with `error` naming the
/// kernel when a tool is missing or fails.
bool packKernelImages(mlir::ModuleOp module, unsigned jobs,
                      KernelImageCounts &counts, std::string &error);

} // namespace gptc

#endif // GPTC_DRIVER_KERNELIMAGES_H
