//===- Passes.td - gptc passes -----------------------------*- tablegen -*-===//

#ifndef GPTC_PASSES_TD
#define GPTC_PASSES_TD

include "mlir/Pass/PassBase.td"

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

def WorkgroupTilesPass : Pass<"gptc-workgroup-tiles", "mlir::func::FuncOp"> {
  let summary = "Stage the shared tiles of GPU kernels in shared memory, with barriers";
  let description = [{
    CUDA only, after the kernels became `gpu.launch` ops: every
    `memref.alloca` marked `gptc.workgroup_tile` inside a launch (a tile
    that all threads of the block read, such as the K tile of the flash
    attention kernels) becomes a workgroup attribution of that launch, in
    `#gpu.address_space<workgroup>`: shared memory in PTX, and every
    `gpt.block_barrier` inside a launch (the barriers between a tile's
    writes and reads) becomes `gpu.barrier`. Unmarked allocas stay private,
    and marked ones and barriers outside a launch are left alone.
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect"];
}

def ThreadBlocksPass : Pass<"gptc-thread-blocks", "mlir::func::FuncOp"> {
  let summary = "Spread each kernel nest over blocks of threads (CUDA)";
  let description = [{
    CUDA only, at the loops stage, before `gpu-map-parallel-loops`: every
    outermost `scf.parallel` with constant bounds becomes a grid of blocks
    of `block-size` threads (fewer, a multiple of 32, for a nest with fewer
    work items): an outer `scf.parallel` over the blocks (mapped to the
    grid's x dimension) around an inner one over the threads (the block's
    x dimension). Work item n = block * block-size + thread runs the nest's
    body at the induction variables n delinearises to, innermost fastest,
    so a warp's 32 threads take 32 consecutive elements of the innermost
    dimension (coalesced accesses to row-major buffers); a guard skips the
    items past the end of the last block. The grid stays within the device
    limits (x up to 2^31 - 1). Nests that stage shared tiles
    (`gptc.workgroup_tile` allocas: the flash-attention and cross-entropy
    kernels, already a loop over blocks around a loop over their threads)
    and nests with dynamic bounds or results are left alone, but for their
    `gpt.block_barrier`s, which become `gpu.barrier` here
    (`convert-parallel-loops-to-gpu` only moves ops it knows into a
    launch).
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", "256",
           "Threads per block (a multiple of 32, at most 1024)">
  ];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::gpu::GPUDialect",
    "mlir::scf::SCFDialect"
  ];
}

def SplitReductionsPass
    : Pass<"gptc-split-reductions", "mlir::func::FuncOp"> {
  let summary = "Split reductions with few results in two (CUDA)";
  let description = [{
    CUDA only, on linalg on tensors. A `linalg.generic` reduction with fewer
    than `min-results` results (the gradient of a scalar parameter, one sum
    over all activations; the Frobenius norms of Newton-Schulz, one per
    matrix) would be a kernel of that many threads, each summing millions
    of terms. It becomes two reductions: the first computes `parts` partial
    results per result, each over one contiguous chunk of its longest
    reduction dimension (a new parallel loop, so results x parts threads),
    starting from the combiner's neutral element; the second combines the
    partials into the original output, in order. The number of parts is
    the largest divisor of that dimension's extent that keeps at least
    `min-terms` terms per part and at most `threads` threads; fewer than 8
    parts is not worth a kernel. The second reduction is split again while
    it qualifies. Nothing depends on scheduling: the same bits every run.
    Every output must be `out = combiner(out, term)` with a combiner that
    has a neutral element (addf, maxnumf, ...) and all outputs one shape;
    other reductions, and those with enough results, are left alone.
  }];
  let options = [
    Option<"minResults", "min-results", "int64_t", "4096",
           "Reductions with at least this many results are left alone">,
    Option<"threads", "threads", "int64_t", "65536",
           "At most this many partial results (threads) per split">,
    Option<"minTerms", "min-terms", "int64_t", "32",
           "At least this many terms per partial result">
  ];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::linalg::LinalgDialect",
    "mlir::tensor::TensorDialect"
  ];
}

def HostComputeToDevicePass
    : Pass<"gptc-host-compute-to-device", "mlir::func::FuncOp"> {
  let summary = "Move the host's reads and writes of buffers into kernels";
  let description = [{
    CUDA only, after the kernels became `gpu.launch` ops. What the loops
    stage leaves outside the kernels is host code: views, allocations,
    GEMM calls and launches, but also buffer reads and writes (0-d
    `linalg.generic`s such as the schedules' scalar arithmetic, full
    reductions such as the mean loss, scalar copies between slots). On a
    GPU those buffers are device memory, which the host cannot address.
    Every maximal run of such work in a host block (`memref.load`,
    `memref.store`, `memref.copy`, loops and conditionals made only of
    them, and the scalar arithmetic between them) moves into one
    single-thread `gpu.launch` (marked `gptc.single_thread`), in program
    order. Scalar arithmetic at the end of a run stays on the host, and
    pure arithmetic the host also needs is copied out. A value read from
    device memory that later kernels use (a window size loaded once, then
    captured by the attention kernels) travels through a device scalar: the
    run stores it, each of those kernels loads it. One that host code uses
    (a loop bound, an offset) is an error. Runs containing a launch, a call
    or an allocation stay on the host.
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect", "mlir::arith::ArithDialect"];
}

def RoundToBf16Pass : Pass<"gptc-round-to-bf16", "mlir::ModuleOp"> {
  let summary = "f32 -> bf16 rounding as integer operations on the bits (CPU, LLVM dialect)";
  let description = [{
    Rewrites `llvm.fptrunc` from f32 to bf16 (scalars and vectors) as
    integer operations on the f32 bits: add 0x7fff plus the lowest kept
    bit, keep the high half as i16; a NaN keeps its high half with the
    quiet bit set. This is the runtime's `f32ToBf16` bit for bit. A store
    of the result stores the i16 bits and a widening back to f32 shifts
    them, so no bf16 value is left between them. LLVM lowers the
    conversion to an instruction only on CPUs with AVX512_BF16; on other
    x86 CPUs it carries bf16 values as f32 and rounds them with calls of
    `__truncsfbf2`, which Debian 12's libgcc does not have. Other
    truncations are left alone.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

def ApproximateExpPass : Pass<"gptc-approximate-exp", "mlir::func::FuncOp"> {
  let summary = "f32 exp as a vectorisable polynomial (CPU)";
  let description = [{
    Rewrites f32 `math.exp` with MLIR's polynomial approximation
    (`populateMathPolynomialApproximationPatterns`, exp only): plain `arith`
    operations that LLVM vectorises in the kernels' loops, where libm's
    `expf` would be called once per element. Softmax, cross-entropy and the
    attention kernels are the users. f64 is left to libm.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::math::MathDialect",
                           "mlir::vector::VectorDialect"];
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
    carried in `iter_args` and stored once after; the combining op gets
    `fastmath<reassoc>` so the sum may be vectorised (partial sums in
    vector lanes: a different, still deterministic, order of additions).
    Buffers of one kernel do not overlap (`gptc-plan-buffers` gives live
    buffers disjoint arena ranges).
  }];
  let dependentDialects = ["mlir::scf::SCFDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::arith::ArithDialect"];
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
    Option<"columnEmbeddingGrad", "column-embedding-grad", "bool", "false",
           "gpt.embedding_grad as one kernel over the table's columns and "
           "slices of its rows, each work item adding its rows of its column "
           "in position order (CUDA: no host loop); otherwise a loop over "
           "the positions adding whole rows (CPU)">
  ];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::bufferization::BufferizationDialect",
    "mlir::linalg::LinalgDialect", "mlir::math::MathDialect",
    "mlir::memref::MemRefDialect", "mlir::scf::SCFDialect",
    "mlir::tensor::TensorDialect", "mlir::vector::VectorDialect"
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

def SharedTileRegistersPass
    : Pass<"gptc-shared-tile-registers", "mlir::ModuleOp"> {
  let summary = "Let kernels with shared tiles use the registers they need";
  let description = [{
    After `gpu-kernel-outlining`: every kernel `gpu.func` with workgroup
    attributions (the flash-attention kernels, which keep a row's state per
    thread) gets `nvvm.minctasm = 1` (PTX `.minnctapersm 1`). With only
    `.maxntid`, ptxas budgets registers for more resident blocks per SM
    than the kernel's shared memory allows and spills; with it, the budget
    is what one block of the kernel's size may use (65536 / threads, at
    most 255). Kernels without shared tiles are left alone.
  }];
  let dependentDialects = ["mlir::NVVM::NVVMDialect"];
}

def ArenaBufferUnitsPass : Pass<"gptc-arena-buffer-units", "mlir::ModuleOp"> {
  let summary = "Take every arena view's offset from the runtime's buffer table";
  let description = [{
    CUDA target. Every `memref.view` of a step entry point's arena (its one
    `memref<Nxi8>` argument, constant offset, static shape) takes its byte
    shift from `func.call @gptc_cuda_buffer_shift(offset) : (index) ->
    index`, a function of the CUDA runtime, and the module gets
    `memref.global constant @gptc_buffer_units`: `[n, begin0, end0, ...]`,
    the union of the overlapping views' byte ranges (a buffer with the
    slices written into it is one unit). The runtime returns the offset
    itself, or, with GPTC_DEBUG_BUFFERS=1, places every unit in an
    allocation of its own and returns the shift that reaches it from the
    arena's base: a write past one buffer then leaves its allocation and
    the driver reports it. A module without arena views is left alone; an
    arena view with a dynamic offset or shape is an error.
  }];
  let dependentDialects = ["mlir::func::FuncDialect",
                           "mlir::memref::MemRefDialect"];
}

def NameKernelsPass : Pass<"gptc-name-kernels", "mlir::func::FuncOp"> {
  let summary = "Name every gpu.launch's kernel after the spec key it computes";
  let description = [{
    Before `gpu-kernel-outlining`: each `gpu.launch` without a `function`
    attribute gets `function = @<entry>_<key>`, where `<entry>` is the
    function's name without `gptc_` and `_step` (grad, update, eval,
    logits) and `<key>` is the first name in the launch's location (the
    spec key that configured it, `blocks.3.attn.sdpa`) with numeric
    components (layer indices) dropped and other separators made `_`
    (`grad_blocks_attn_sdpa`; `update_wte`, not `update_update_wte`);
    `kernel` when the location names none.
    Outlining then names the kernel function so, and launch errors,
    profiles and `--stats` name kernels by what they compute. Launches
    that already carry a `function` are left alone.
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect"];
}

def DedupKernelsPass : Pass<"gptc-dedup-kernels", "mlir::ModuleOp"> {
  let summary = "Keep one outlined gpu.module per distinct kernel";
  let description = [{
    After `gpu-kernel-outlining`, gpu.modules whose bodies and attributes
    are identical but for the kernel function's name (the same loop nest in
    every layer, or in two places of a layer) are merged into the first
    one: the launches of the others point at it, and the module attribute
    `gptc.kernel_aliases` maps each removed module's name to the kept one
    (`{k2 = @k1}`), so that every kernel keeps a name in
    `--emit=ptx -o DIR`. Each distinct kernel is then translated to PTX
    once. Each kept module and its kernel function are then named alike
    after the function (gptc-name-kernels' name), with `_1`, `_2`, ...
    for the second and later distinct kernels of one name, so that every
    PTX entry point of the step is distinct.
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect"];
}

def StreamLaunchesPass : Pass<"gptc-stream-launches", "mlir::func::FuncOp"> {
  let summary = "Enqueue kernel launches on the step's stream without waits";
  let description = [{
    Every synchronous `gpu.launch_func` of the function (a launch followed,
    once lowered, by a stream synchronisation) becomes an asynchronous one
    on a stream token made once at the function's entry (`gpu.wait async`,
    which lowers to `mgpuStreamCreate`: the device's stream). The launches'
    tokens are not waited for: the runtime puts all of a step's GPU work on
    that one in-order stream and synchronises when it reads the results.
    Launches that are already asynchronous, and functions without launches,
    are left as they are.
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect"];
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

def SequentialInnermostPass
    : Pass<"gptc-sequential-innermost", "mlir::func::FuncOp"> {
  let summary = "Run the innermost dimension of CPU kernels as a plain loop";
  let description = [{
    An `scf.parallel` of two or more dimensions without reductions becomes
    an `scf.parallel` over all but its innermost dimension around an
    `scf.for` over that one. `convert-scf-to-openmp` collapses every
    dimension of a parallel loop into one induction variable and recovers
    the indices with divisions, which LLVM's vectoriser cannot analyse; with
    the innermost dimension sequential, the divisions happen once per row
    and the row itself is a unit-stride loop that vectorises. Nested
    parallel loops, one-dimensional ones and reductions are left alone. CPU
    target only: the CUDA backend maps every dimension onto the grid.
  }];
  let dependentDialects = ["mlir::scf::SCFDialect"];
}

def OutlineKernelsPass : Pass<"gptc-outline-kernels", "mlir::ModuleOp"> {
  let summary = "Outline each CPU kernel nest into a function, once per body";
  let description = [{
    Every outermost `scf.parallel` of a function becomes a call of a private
    function `@gptc_kernel_N` holding the nest. Its arguments are the values
    the nest uses from outside, but for constants and `memref.get_global`,
    which are cloned into the kernel so that LLVM still sees constant loop
    bounds and strides. Kernels whose type and body are identical (the same
    nest in every layer: the buffers differ, not the code) share one
    function, so LLVM optimises and compiles each distinct kernel once, in
    small functions that can be compiled in parallel, instead of one
    step-sized function per entry point. Kernels are marked `noinline`
    (`passthrough`, which the conversion to LLVM keeps).
    A view of a byte buffer (`memref.view` of the step's arena, then
    subviews and reshapes) that the nest only loads and stores through is
    passed as the buffer and a byte shift, and rebuilt in the kernel at
    offset 0: every layer's call shares the kernel, and with every memref
    argument of static layout the kernel is `llvm.bareptr`, so a call
    passes one pointer per buffer, not a memref descriptor's fields (the
    host code of a deep model stays small). Views only kernels used are
    erased from the host.
    CPU target only; the CUDA backend outlines with `gpu-kernel-outlining`.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::func::FuncDialect",
                           "mlir::memref::MemRefDialect"];
  let statistics = [
    Statistic<"numKernels", "kernels", "Kernel nests outlined">,
    Statistic<"numDistinct", "distinct-kernels", "Kernel functions created">
  ];
}

def SplitHostPass : Pass<"gptc-split-host", "mlir::ModuleOp"> {
  let summary = "Split a long CPU step function into a chain of calls";
  let description = [{
    After gptc-outline-kernels, a step function is straight-line code: a
    call per kernel, GEMM calls, views of the arena, as long as the model
    is deep. Code generation holds a whole function at once (its machine
    instructions, and a selection DAG per block), so that function's size
    bounded the memory of a deep model's compile. This pass cuts the
    top-level ops of each function with more than `max-ops` ops (nested ops
    counted) into consecutive parts of about `max-ops`, each a private
    `noinline` function `@F_part_N` called in order. A part takes the values
    it uses from before it and returns those used after it; constants and
    views of the function's arguments (pure, cheap) are recomputed in the
    part instead. Stack allocations (`memref.alloca`) stay in the function,
    so that none outlives its frame. Parts take memrefs of static layout as
    bare pointers (`llvm.bareptr`). CPU target only.
  }];
  let options = [
    Option<"maxOps", "max-ops", "int64_t", /*default=*/"200",
           "Ops per part (a function this long or shorter is kept whole)">
  ];
  let dependentDialects = ["mlir::func::FuncDialect"];
  let statistics = [
    Statistic<"numParts", "parts", "Functions made from parts of others">
  ];
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
    the Newton-Schulz ops are lowered.
  }];
  let options = [
    Option<"ranks", "ranks", "int64_t", /*default=*/"1",
           "Data-parallel ranks (world size)">,
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
    tensor functions become private (inline them afterwards).
  }];
  let options = [
    Option<"gradAccum", "grad-accum", "int64_t", /*default=*/"1",
           "Micro-steps per optimizer step (gradients are averaged)">,
    Option<"ranks", "ranks", "int64_t", /*default=*/"1",
           "Data-parallel ranks: > 1 averages every micro-step's gradients "
           "and loss, and the eval loss, over the ranks (comm.all_reduce "
           "avg)">,
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

def SinkGlobalsPass : Pass<"gptc-sink-globals", "mlir::func::FuncOp"> {
  let summary = "Move the memref.get_global a gpu.launch uses into it";
  let description = [{
    A host global's address is not a device address. For every
    `memref.get_global` defined outside a `gpu.launch` and used inside it,
    the launch body gets its own copy of the op (at its start) and the uses
    inside the body use the copy; uses outside keep the original.
    `gpu-kernel-outlining` then copies the global into the kernel's
    gpu.module.
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect"];
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
