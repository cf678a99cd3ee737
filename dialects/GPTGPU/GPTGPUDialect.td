//===- GPTGPUDialect.td - The gptgpu dialect ---------------*- tablegen -*-===//
//
// The `gptgpu` dialect: the warp- and block-level instructions of gptc's
// CUDA kernels, kept apart from the model's `gpt` ops (as Triton keeps its
// NVIDIA-level `ttng` apart from `tt`).
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_DIALECT_GPTGPU_DIALECT_TD
#define GPTC_DIALECT_GPTGPU_DIALECT_TD

include "mlir/IR/OpBase.td"

def GPTGPU_Dialect : Dialect {
  let name = "gptgpu";
  let cppNamespace = "::mlir::gptgpu";
  let summary = "Warp- and block-level instructions of gptc's GPU kernels.";
  let description = [{
    The `gptgpu` dialect holds what a CUDA kernel's threads do together and
    the model's tensors know nothing of: a thread block's barrier
    (`gptgpu.block_barrier`) and one warp's tensor-core product
    (`gptgpu.warp_mma`). Only the CUDA target's kernel emitters
    (`gptc-lower-to-linalg{gpu-kernels}`, passes/GPU/) create them, inside
    the loop nests of kernels still on `scf.parallel`; each is lowered by a
    pass named for it (`gptc-lower-block-barriers`, `gptc-lower-warp-mma`)
    to the `gpu` and `nvvm` ops that go to PTX. Unlike those, they state
    their memory effects in terms the buffer passes accept.
  }];
}

class GPTGPU_Op<string mnemonic, list<Trait> traits = []>
    : Op<GPTGPU_Dialect, mnemonic, traits>;

#endif // GPTC_DIALECT_GPTGPU_DIALECT_TD
