//===- Passes.td - gptc passes -----------------------------*- tablegen -*-===//

#ifndef GPTC_PASSES_TD
#define GPTC_PASSES_TD

include "mlir/Pass/PassBase.td"

// CPU and CUDA code generation, in their folders.
include "CPU/CPUPasses.td"
include "GPU/GPUPasses.td"

def AutodiffPass : Pass<"gptc-autodiff", "mlir::ModuleOp"> {
  let summary = "Reverse-mode autodiff of a gpt forward function";
  let description = [{
    For the function named by `function` (default `forward`), whose single
    result is the scalar loss, builds `<function>_grad`: the same arguments,
    results (loss, d loss / d p for every argument marked `gpt.param`, in
    argument order). The backward graph is gpt IR, produced by walking the
    forward graph backwards and asking every op for its vector-Jacobian
    product through `DifferentiableOpInterface`. Only values that depend on
    a parameter are differentiated (activity analysis). The forward
    function is kept.
  }];
  let options = [
    Option<"function", "function", "std::string", /*default=*/"\"forward\"",
           "The forward function to differentiate">,
  ];
  let dependentDialects = ["mlir::gpt::GPTDialect", "mlir::func::FuncDialect"];
}

def FuseRotaryPass : Pass<"gptc-fuse-rotary", "mlir::func::FuncOp"> {
  let summary = "Recognise the rotary embedding in a forward graph and fuse it";
  let description = [{
    The halves of the last dimension rotated by broadcast cos/sin tables
    and concatenated become one `gpt.rotary` (one pass; its VJP is the
    inverse rotary, one pass too). Fires only when no intermediate (the
    halves, the broadcast tables, the four products, the sum and the
    difference) has a user outside the pattern. Runs before autodiff.

    ```mlir
    %x1 = gpt.slice %x offsets = [0, 0, 0, 0] : tensor<4x256x2x32xf32> to tensor<4x256x2x16xf32>
    %x2 = gpt.slice %x offsets = [0, 0, 0, 16] : tensor<4x256x2x32xf32> to tensor<4x256x2x16xf32>
    %c = gpt.broadcast %cos : tensor<1x256x1x16xf32> to tensor<4x256x2x16xf32>
    %s = gpt.broadcast %sin : tensor<1x256x1x16xf32> to tensor<4x256x2x16xf32>
    ... %y1 = x1 c + x2 s, %y2 = x2 c - x1 s ...
    %y = gpt.concat %y1, %y2 dim = 3 : (...) -> tensor<4x256x2x32xf32>
    // =>
    %y = gpt.rotary %x, %cos, %sin : tensor<4x256x2x32xf32>, tensor<1x256x1x16xf32>
    ```
  }];
  let dependentDialects = ["mlir::gpt::GPTDialect"];
}

def FuseRMSNormPass : Pass<"gptc-fuse-rmsnorm", "mlir::func::FuncOp"> {
  let summary = "Recognise RMSNorm in a forward graph and fuse it";
  let description = [{
    `x * broadcast(rsqrt(mean(x^2, -1) + eps))` becomes `gpt.rms_norm`; a
    following multiplication by a weight vector (broadcast from the last
    dimension) becomes its `weight`, and a preceding `x = a + r` whose sum
    has no other user becomes its `residual`. Fires only when no
    intermediate (square, mean, rsqrt, broadcast) has a user outside the
    pattern. Runs before autodiff, so the backward graph is built from the
    fused op's VJP.

    ```mlir
    %1 = gpt.square %x : tensor<2x8x64xf32>
    %2 = gpt.reduce mean %1 dims = [2] : tensor<2x8x64xf32> -> tensor<2x8x1xf32>
    %3 = gpt.add_scalar %2, 1.000000e-06 : tensor<2x8x1xf32>
    %4 = gpt.rsqrt %3 : tensor<2x8x1xf32>
    %5 = gpt.broadcast %4 : tensor<2x8x1xf32> to tensor<2x8x64xf32>
    %y = gpt.mul %x, %5 : tensor<2x8x64xf32>
    // =>
    %y = gpt.rms_norm %x eps = 1.000000e-06 : tensor<2x8x64xf32>
    ```
  }];
  let dependentDialects = ["mlir::gpt::GPTDialect"];
}

def FuseCrossEntropyPass : Pass<"gptc-fuse-cross-entropy",
                                 "mlir::func::FuncOp"> {
  let summary = "Recognise softmax cross-entropy over logits and fuse it";
  let description = [{
    `logsumexp(l) - gather_last(l[targets])` over the last dimension, with
    the log-sum-exp as the frontend writes it (`log(sum(exp(l - m))) + m`,
    `m = max(l)`), becomes `gpt.cross_entropy l[targets]`. Its VJP,
    `gpt.cross_entropy_grad`, writes `g (softmax(l) - onehot(targets))` in
    one pass per row: no one-hot tensor, no gradient through the max.
    Fires only when no intermediate has a user outside the pattern.

    ```mlir
    %m = gpt.reduce max %l dims = [2] : tensor<2x8x512xf32> -> tensor<2x8x1xf32>
    %b = gpt.broadcast %m : tensor<2x8x1xf32> to tensor<2x8x512xf32>
    %s = gpt.sub %l, %b : tensor<2x8x512xf32>
    %e = gpt.exp %s : tensor<2x8x512xf32>
    %z = gpt.reduce sum %e dims = [2] : tensor<2x8x512xf32> -> tensor<2x8x1xf32>
    %g = gpt.log %z : tensor<2x8x1xf32>
    %lse = gpt.add %g, %m : tensor<2x8x1xf32>
    %r = gpt.reshape %lse : tensor<2x8x1xf32> to tensor<2x8xf32>
    %t = gpt.gather_last %l[%targets] : tensor<2x8x512xf32>, tensor<2x8xi32> -> tensor<2x8xf32>
    %nll = gpt.sub %r, %t : tensor<2x8xf32>
    // =>
    %nll = gpt.cross_entropy %l[%targets] : tensor<2x8x512xf32>, tensor<2x8xi32> -> tensor<2x8xf32>
    ```

    Then the logits' producers fold into the op when it is their only
    user: a softcap `c * f(x * s)` (`f` = `gpt.tanh` or `gpt.sigmoid`, both
    scalings `gpt.mul_scalar`) becomes its `softcap` attribute, and a
    widening `gpt.cast` (bf16 logits to f32) is dropped: the op reads the
    bf16 logits and computes in f32. The softcapped f32 logits, the
    largest tensors of a step, are then never stored, and the gradient
    writes the bf16 logits' gradient in one pass.
  }];
  let dependentDialects = ["mlir::gpt::GPTDialect"];
}

def FuseAttentionPass : Pass<"gptc-fuse-attention", "mlir::func::FuncOp"> {
  let summary = "Recognise masked scaled-dot-product attention and fuse it";
  let description = [{
    `softmax(select(mask, scale * q k^T, -inf)) v` as the frontend emits it
    (GEMM operands possibly cast to bf16 and back) becomes
    `gpt.attention q, k, v` on the uncast operands. The mask, an i1
    tensor of allowed (query, key) pairs, is read back as `#gpt.mask`: any
    conjunction of the causal mask, a sliding window in tokens or in
    128-token blocks (its size a run-time operand) and the document mask
    (document ids = running count of a BOS token in the input tokens). Any
    other mask, or a T x T intermediate with a user outside the pattern,
    leaves the primitive ops in place. The fused op's kernels never
    materialise the T x T scores.
  }];
  let dependentDialects = ["mlir::gpt::GPTDialect"];
}

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
           "on tensor cores (mma.sync, AttentionTensorCores.h); off, the "
           "scalar kernels (a --kernel-marks build, whose kernels must each "
           "have the CPU's counterpart)">
  ];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::bufferization::BufferizationDialect",
    "mlir::linalg::LinalgDialect", "mlir::math::MathDialect",
    "mlir::memref::MemRefDialect", "mlir::scf::SCFDialect",
    "mlir::tensor::TensorDialect", "mlir::vector::VectorDialect",
    "mlir::gpu::GPUDialect", "mlir::NVVM::NVVMDialect",
    "mlir::nvgpu::NVGPUDialect", "mlir::LLVM::LLVMDialect"
  ];
}

def UnshareInitsPass : Pass<"gptc-unshare-inits", "mlir::func::FuncOp"> {
  let summary = "Give every destination-passing op its own init tensor";
  let description = [{
    Before one-shot bufferization: a `tensor.empty`, or a `linalg.fill` of
    one, that is the init (`outs`) of several destination-passing ops (CSE
    merges the zero accumulators of every GEMM and reduction of a step into
    one) is cloned right before each of those ops but the first, which
    keeps the original. Uses as an input are left alone. One-shot
    bufferization's conflict analysis visits every pair of uses of an alias
    set for each in-place decision, so one init shared by N ops costs
    O(N^2) per decision; a compile then grows with the cube of the model's
    depth. With private inits every write is analysed against its own few
    uses, and each GEMM's zero init is a fill that `gptc-gemm-to-blas`
    turns into beta = 0 rather than a copy of a shared zero buffer.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
  let statistics = [
    Statistic<"numUnshared", "unshared", "Inits cloned for a destination">
  ];
}

def WriteSlotsInPlacePass : Pass<"gptc-write-slots-in-place",
                                  "mlir::func::FuncOp"> {
  let summary = "Let the kernel that computes a slot's new value write it";
  let description = [{
    Before one-shot bufferization: when a `linalg.generic` result is
    materialized into an arena slot (`materialize_in_destination ... in
    restrict writable %view`) and its init is a `tensor.empty` the payload
    never reads, the init becomes the slot's own writable `to_tensor` (the
    one that reads the old value, or a new one). Bufferization then writes
    the slot in place when the old value is dead, and the materialization
    folds to nothing; otherwise it still copies, as before. Parameters,
    optimizer states and accumulated gradients are no longer computed into
    a temporary and then copied.
  }];
  let dependentDialects = ["mlir::bufferization::BufferizationDialect"];
}

def PlanBuffersPass : Pass<"gptc-plan-buffers", "mlir::ModuleOp"> {
  let summary = "Place the step's temporary buffers in the arena by liveness";
  let description = [{
    After bufferization, before deallocation, every statically shaped
    `memref.alloc` in the body of an arena entry point (a function whose
    only argument is the `memref<Nxi8>` arena of `gptc-build-step`) that no
    `memref.dealloc` frees, or one in the same block does, is live from the
    alloc to the last op of the block that uses it or a value computed from
    it (views, extracted pointers handed to GEMM calls; uses in nested
    regions count at their ancestor). (Running before the deallocation
    pipeline keeps that pipeline's work small: it would otherwise free
    every temporary of a step in one `bufferization.dealloc` whose
    simplification compares each pair of them.) Those buffers get byte offsets in one workspace by greedy
    interval packing (largest first, lowest free offset, 64-byte aligned):
    buffers whose lifetimes do not overlap share bytes. The allocs become
    `memref.view`s of the arena at `workspace offset + buffer offset`, the
    deallocs go, the workspace is appended to the arena (the entry points'
    argument type and the `#gpt.arena` layout's size grow) and recorded as
    the layout's workspace. The entry points run one at a time,
    so they share the workspace. A step then calls no allocator at all.

    Element types are integers, floats and index (at the data layout's
    size of an index). Buffers allocated inside loops or conditionals, with
    dynamic shapes or freed in another block stay `memref.alloc`. A module without
    a `gptc.arena` layout is left alone.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect"];
}

def ExportLayoutPass : Pass<"gptc-export-layout", "mlir::ModuleOp"> {
  let summary = "Export the arena layout from the step library";
  let description = [{
    Writes the module's `gptc.arena` layout (`#gpt.arena`, after
    gptc-plan-buffers) as the layout descriptor of runtime/StepLayout.h:
    two external constant globals, `@gptc_step_layout` (the descriptor text)
    and `@gptc_step_layout_sha256` (its SHA-256 in hex), both NUL-terminated,
    which the step library exports so that the runtime can check that a
    manifest and a step library belong together. A module without a
    layout is left alone; one that already exports it is an error.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

def GemmToBlasPass : Pass<"gptc-gemm-to-blas", "mlir::ModuleOp"> {
  let summary = "Turn linalg GEMMs on buffers into runtime GEMM calls";
  let description = [{
    After bufferization, every `linalg.matmul` / `linalg.batch_matmul`,
    and every scaled contraction (a `linalg.generic` with matmul maps whose
    body is `out + (a * b) * alpha`, as `gpt.matmul_add` lowers), becomes a
    call of `gptc_gemm_f32` / `_f64` / `_bf16` (runtime/gptrt.h:
    D = alpha op(A) op(B) + beta C) with the operands' addresses and
    strides, transposes read from the indexing maps. What initialised the
    output D right before the GEMM becomes the epilogue: a zero
    `linalg.fill` gives beta = 0, a scaled copy (`out = in * s`) beta = s
    and C = its input, a `memref.copy` C = its source; the op goes. First,
    every `memref.copy` from a buffer while it holds zeros (zero-filled
    once, in the same block, and not written since) becomes a zero fill of
    its target, so that the GEMM outputs bufferization initialises by
    copying one shared zero buffer get beta = 0 too; the zero buffer goes
    when nothing else uses it. Fails if a named GEMM is left.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::func::FuncDialect"];
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

def LowerOptimPass : Pass<"gptc-lower-optim"> {
  let summary = "Lower optim ops (Adam, Muon, Newton-Schulz, SVD, schedules) to gpt";
  let description = [{
    Writes each optimizer op as gpt primitives so that the update step lowers
    to kernels and GEMM calls like the model: Adam/AdamW elementwise with
    bias correction; Muon's momentum (sum or lerp form, Nesterov), the QKV
    split, the update scale and weight decay; the quintic Newton-Schulz
    iteration unrolled, with its GEMMs in the compute dtype (bf16 operands,
    f32 accumulation in the GEMM call); the learning-rate multiplier and
    momentum warm-up as scalar math on the step counter.

    The SVD backend (`optim.svd_orthogonalize`, Muon with `backend = svd`)
    becomes a call of the runtime's `gptc_svd_orthogonalize_f32` / `_f64`
    (runtime/gptrt.h, through the C interface) on the operand's buffer
    (`bufferization.to_buffer`, as [batch, rows, cols]) and a new result
    buffer (`memref.alloc` + `bufferization.to_tensor restrict writable`),
    in f32 (f64 for f64). The pass runs on any op; run on the module it
    declares the callees, run on a function it needs them declared already
    and reports an error otherwise. `optim.window_schedule` is not lowered
    yet and is reported as an error.
  }];
  let options = [
    Option<"keepNewtonSchulz", "keep-newton-schulz", "bool",
           /*default=*/"false",
           "Leave optim.newton_schulz ops for gptc-fuse-newton-schulz (a "
           "second run lowers them)">,
    Option<"gemmEpilogues", "gemm-epilogues", "bool", /*default=*/"true",
           "Write Newton-Schulz's scale-adds as GEMM epilogues "
           "(gpt.matmul_add); false keeps them separate sums of gpt.matmul "
           "results (the --no-fuse path)">,
  ];
  let dependentDialects = ["mlir::gpt::GPTDialect",
                           "mlir::bufferization::BufferizationDialect",
                           "mlir::memref::MemRefDialect"];
}

def FuseNewtonSchulzPass : Pass<"gptc-fuse-newton-schulz",
                                "mlir::func::FuncOp"> {
  let summary = "Batch same-shape Newton-Schulz orthogonalisations";
  let description = [{
    The `optim.newton_schulz` ops of an update (one per Muon parameter, or
    per Q/K/V block) that share the matrix type and every setting (steps,
    coefficients, form, transpose rule, normalisation, compute dtype)
    become one op on the stacked [N, rows, cols] tensor, whose GEMMs lower
    to one strided batched runtime call each instead of N calls; the
    results are sliced back out. The Gram product X X^T of each iteration
    is computed symmetrically by the runtime (one triangle, mirrored), and
    the scale-adds are the other two GEMMs' epilogues (`gpt.matmul_add`).
    Ops alone in their group, and rank > 2 inputs, stay as they are. A
    group larger than `max-batch` is cut into batches of at most that many
    (in program order): the stack is built by a chain of `insert_slice`s,
    and bufferization's analysis of a chain costs the square of its length,
    so an unbounded batch made the compile of a deep model cubic in its
    depth. 64 keeps every record's batches whole (GPT-2 small and R15
    stack 48 matrices of a shape) and bounds the analysis. Runs between
    `gptc-lower-optim{keep-newton-schulz}` and a second `gptc-lower-optim`.
  }];
  let options = [
    Option<"maxBatch", "max-batch", "int64_t", "64",
           "The most matrices one batched op takes">
  ];
  let dependentDialects = ["mlir::gpt::GPTDialect",
                           "mlir::optim::OptimDialect"];
}

def DistributeNewtonSchulzPass : Pass<"gptc-distribute-newton-schulz",
                                      "mlir::func::FuncOp"> {
  let summary = "Split Newton-Schulz work over data-parallel ranks";
  let description = [{
    With `ranks` > 1 every rank holds the same momentum (the gradients were
    averaged), so each rank orthogonalises only its share of the hidden
    matrices and the results are exchanged. An `optim.newton_schulz` on K > 1
    matrices (`[K, rows, cols]`, batched by gptc-fuse-newton-schulz)
    becomes:

      stack the K matrices round-robin, padded to K' = ceil(K / ranks) *
      ranks with copies of the last one: position r * K'/ranks + j holds
      matrix j * ranks + r
      %mine = comm.shard %stack world_size = ranks       [K'/ranks, ...]
      %u    = optim.newton_schulz %mine                   (same settings)
      %all  = comm.all_gather %u world_size = ranks      [K', ...]
      the K results sliced back out in the original order

    so rank r orthogonalises matrices r, r + ranks, r + 2 ranks, ... of each
    same-shape group (modded-nanogpt's assignment), and every rank ends
    with every update, bit-identical to computing them all itself. A
    single matrix has nothing to split (every rank computes it: --no-fuse
    builds, whose Newton-Schulz ops are not batched, replicate it all), and
    nothing changes with `ranks` = 1. Runs after gptc-fuse-newton-schulz, before
    the Newton-Schulz ops are lowered. `ranks` unset (0) is the module's
    `gpt.ranks` (passes/Step/TrainingShape.h).
  }];
  let options = [
    Option<"ranks", "ranks", "int64_t", /*default=*/"0",
           "Data-parallel ranks (world size); 0: the module's gpt.ranks "
           "(1 without it)">,
  ];
  let dependentDialects = ["mlir::gpt::GPTDialect",
                           "mlir::comm::CommDialect"];
}

def BuildStepPass : Pass<"gptc-build-step", "mlir::ModuleOp"> {
  let summary = "Build the arena entry points of the training step";
  let description = [{
    From `@forward`, `@forward_grad` (gptc-autodiff) and `@update` (the
    optimizer), whose arguments and results name their arena slots with
    `gpt.name`, builds `@gptc_grad_step`, `@gptc_update_step` and
    `@gptc_eval_step`, each taking the whole arena as a `memref<Nxi8>`
    (runtime/gptrt.h). The grad step accumulates the loss and the gradients
    scaled by 1/grad-accum; with `ranks` > 1 each micro-step's loss and
    gradients are first averaged over the ranks (`comm.all_reduce avg`, one
    per gradient: gptc-lower-comm issues each as soon as its gradient is
    final and the runtime packs them into buckets), and so is the eval
    loss. Slot offsets are 64-byte aligned and recorded in
    the module attribute `gptc.arena`, a `#gpt.arena` layout. The three
    tensor functions become private (inline them afterwards). Unset (0),
    `ranks` and `grad-accum` are the module's `gpt.ranks` and
    `gpt.grad_accum` (the frontend records the spec's); set, they must agree
    with them (passes/Step/TrainingShape.h).
  }];
  let options = [
    Option<"gradAccum", "grad-accum", "int64_t", /*default=*/"0",
           "Micro-steps per optimizer step (gradients are averaged); 0: the "
           "module's gpt.grad_accum (1 without it)">,
    Option<"ranks", "ranks", "int64_t", /*default=*/"0",
           "Data-parallel ranks: > 1 averages every micro-step's gradients "
           "and loss, and the eval loss, over the ranks (comm.all_reduce "
           "avg); 0: the module's gpt.ranks (1 without it)">,
  ];
  let dependentDialects = ["mlir::bufferization::BufferizationDialect",
                           "mlir::comm::CommDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::gpt::GPTDialect"];
}

def LowerCommPass : Pass<"gptc-lower-comm", "mlir::ModuleOp"> {
  let summary = "Turn comm collectives into calls of the runtime";
  let description = [{
    Collectives are not kernels: each comm op becomes a call of the
    runtime's communication interface (runtime/gptrt.h, `gptc_comm_*`) on
    contiguous buffers, its operand read through `bufferization.to_buffer`
    and its result written into a new buffer (`memref.alloc` +
    `bufferization.to_tensor restrict writable`). Addresses are passed as
    integers, like the GEMM calls.

    `comm.all_reduce` is split in two so that the backend can overlap it
    with the rest of the step: `gptc_comm_all_reduce_start` right after the
    operand's producer (the gradient is final there) returns a handle, and
    `gptc_comm_wait` (given both buffers again, which keeps them live for
    gptc-plan-buffers until then) comes just before the result's first
    user. `comm.all_gather` (`gptc_comm_all_gather`) and `comm.shard`
    (`gptc_comm_shard`, this rank's slice) are blocking calls. Element
    types are passed as codes (`GPTC_DTYPE_*`), reductions as
    `comm::ReductionKind` values. The callees are declared in the module.
  }];
  let dependentDialects = ["mlir::bufferization::BufferizationDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::func::FuncDialect"];
}

def RegisterAccumulatorsPass : Pass<"gptc-register-accumulators",
                                    "mlir::func::FuncOp"> {
  let summary = "Keep a loop's accumulator in a register";
  let description = [{
    A reduction lowered to loops reads and writes its output element in
    every iteration of the reduction loop (`memref.load`, an `arith` add,
    mul, maximum or minimum, `memref.store` at the same loop-invariant
    indices). Since every buffer of a step is a view of one arena, LLVM
    cannot prove the other loads of the loop do not alias it and keeps the
    store in the loop, a chain through memory. When the loop touches that
    memref nowhere else, the element is loaded once before the loop,
    carried in `iter_args` and stored once after. With `reassociate` (the
    CPU) the combining op gets `fastmath<reassoc>` so the sum may be
    vectorised (partial sums in vector lanes: a different, still
    deterministic, order of additions); without it (CUDA, after the loops
    became `gpu.launch` bodies) the order is the loop's, the same bits.
    Buffers of one kernel do not overlap (`gptc-plan-buffers` gives live
    buffers disjoint arena ranges).
  }];
  let options = [
    Option<"reassociate", "reassociate", "bool", /*default=*/"true",
           "Mark the combining op fastmath<reassoc> (vectorisable sums)">,
  ];
  let dependentDialects = ["mlir::scf::SCFDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::arith::ArithDialect"];
}

def CopyToLinalgPass : Pass<"gptc-copy-to-linalg", "mlir::func::FuncOp"> {
  let summary = "Turn memref.copy into linalg.copy (a generated kernel)";
  let description = [{
    Buffer copies made by bufferization become `linalg.copy`, so they lower
    to loop nests like every other kernel (on both targets) instead of
    calls into MLIR's C runner utilities.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

def KernelMarksPass : Pass<"gptc-kernel-marks", "mlir::ModuleOp"> {
  let summary = "Bracket every kernel nest with gptc_kernel_mark(ID, 0|1) calls";
  let description = [{
    Every scf.parallel that is not nested in another (a kernel nest, after
    `convert-linalg-to-parallel-loops`) gets a call
    `gptc_kernel_mark(ID, 0)` before it and `gptc_kernel_mark(ID, 1)` after
    it, ID numbering the nests of the module in program order; the callee
    is declared private. The IDs are the same on the CPU and CUDA targets:
    `gptc-emu-check` compares each kernel's arena writes between the two
    bundles (`gptc compile --kernel-marks`).
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::func::FuncDialect"];
}

def PipelineOptionsErrorPass : Pass<"gptc-pipeline-options-error",
                                    "mlir::ModuleOp"> {
  let summary = "Fail with a message: contradictory pipeline options";
  let description = [{
    A pass pipeline builder cannot fail; when `gptc-pipeline`'s options
    contradict each other (start-after not before stop-after) the pipeline
    is this one pass, which emits `message` as an error on the module and
    fails when it runs.
  }];
  let options = [
    Option<"message", "message", "std::string", /*default=*/"\"\"",
           "The error to report">,
  ];
}

#endif // GPTC_PASSES_TD
