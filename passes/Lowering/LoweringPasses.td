//===- LoweringPasses.td - gptc passes ---------------------*- tablegen -*-===//
//
// Stage 4: kernels as linalg on tensors (both targets). Included by
// passes/Passes.td (one pass-declaration file for the library).
//
//===----------------------------------------------------------------------===//

def LowerToLinalgPass : Pass<"gptc-lower-to-linalg", "mlir::func::FuncOp"> {
  let summary = "Lower gpt primitives to linalg and tensor ops";
  let description = [{
    Each elementwise op, reduction, gather and scatter becomes a
    `linalg.generic` (a future kernel); GEMMs become `linalg.matmul` /
    `linalg.batch_matmul` with transposing indexing maps (batch dimensions
    collapsed, a shared rank-2 right-hand side folded into M); shape ops
    become `tensor` views and slices. Fails on any gpt op it cannot lower.

    ```mlir
    %r = gpt.exp %x : tensor<4xf32>
    // =>
    %r = linalg.generic {...} ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
      ^bb0(%in: f32, %out: f32):
        %0 = math.exp %in : f32
        linalg.yield %0 : f32
    } -> tensor<4xf32>
    ```
  }];
  let options = [
    Option<"gpuKernels", "gpu-kernels", "bool", "false",
           "Kernels shaped for a GPU (CUDA): the flash-attention kernels "
           "with a thread block per tile, one thread per row, shared tiles "
           "loaded by the whole block between barriers, and the "
           "cross-entropy kernels with a thread block per row of logits "
           "(CPU: the work item loops over its rows)">,
    Option<"sortedEmbeddingGrad", "sorted-embedding-grad", "bool", "false",
           "gpt.embedding_grad as a segmented sum over the positions sorted "
           "by token (a bitonic sort shared by the gradients of the same "
           "ids, then a work item per table element adding its positions "
           "in order: CUDA); otherwise a loop over the positions adding "
           "whole rows (CPU)">,
    Option<"tensorCores", "tensor-cores", "bool", "true",
           "With gpu-kernels: the forward of gpt.attention {products = bf16} "
           "on tensor cores (mma.sync, passes/GPU/AttentionTensorCores.h); off, the "
           "scalar kernels (a --kernel-marks build, whose kernels must each "
           "have the CPU's counterpart)">
  ];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::bufferization::BufferizationDialect",
    "mlir::linalg::LinalgDialect", "mlir::math::MathDialect",
    "mlir::memref::MemRefDialect", "mlir::scf::SCFDialect",
    "mlir::tensor::TensorDialect", "mlir::vector::VectorDialect",
    "mlir::gpu::GPUDialect", "mlir::NVVM::NVVMDialect",
    "mlir::nvgpu::NVGPUDialect", "mlir::LLVM::LLVMDialect",
    "mlir::gptgpu::GPTGPUDialect"
  ];
}

def FuseElementwisePass : Pass<"gptc-fuse-elementwise", "mlir::func::FuncOp"> {
  let summary = "Fuse chains of elementwise linalg.generic ops";
  let description = [{
    Producer/consumer fusion of `linalg.generic` ops (upstream's elementwise
    fusion) restricted to generic consumers and single-use producers: GEMMs
    stay named ops for `gptc-gemm-to-blas`, and no computation is repeated.
    A producer with other users moves into its consumer when those users
    only store it. A producer that only moves data (a generic without
    inputs, or one that broadcasts or widens its input and so writes more
    bytes than it reads) is cloned into each generic user it fuses with:
    the users read the smaller source instead of a materialised copy.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

def HoistScalarOperandsPass
    : Pass<"gptc-hoist-scalar-operands", "mlir::func::FuncOp"> {
  let summary = "Read broadcast scalar operands of kernels once, outside";
  let description = [{
    A `linalg.generic` on tensors whose input is read at constant indices
    whatever the iteration (an indexing map of constants only: a norm, a
    learning rate, a step counter broadcast over a matrix) reads it with one
    `tensor.extract` before the op instead, and the body uses that value.
    After bufferization the read is a single load outside the kernel's loop
    nest: the kernel no longer reloads it (and what is computed from it,
    such as a square root) at every element because a store of the kernel
    might alias it, and the loop vectorises. Inputs read at varying indices
    and ops on buffers are left alone.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::arith::ArithDialect"];
}
