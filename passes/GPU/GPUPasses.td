//===- GPUPasses.td - gptc's CUDA codegen passes -----------*- tablegen -*-===//
//
// The passes only the CUDA target runs: stage 4's (split-k, split
// reductions), code generation (stage 7: kernels as gpu.launch, the gptgpu
// ops lowered) and the PTX stage's. Included by passes/Passes.td (one
// pass-declaration file for the library).
//
//===----------------------------------------------------------------------===//

def WorkgroupTilesPass : Pass<"gptc-workgroup-tiles", "mlir::func::FuncOp"> {
  let summary = "Stage the shared tiles of GPU kernels in shared memory";
  let description = [{
    CUDA only, after the kernels became `gpu.launch` ops: every
    `memref.alloca` marked `gptc.workgroup_tile` inside a launch (a tile
    that all threads of the block read, such as the K tile of the flash
    attention kernels) becomes a workgroup attribution of that launch, in
    `#gpu.address_space<workgroup>`: shared memory in PTX (the barriers
    between a tile's writes and reads are `gptc-lower-block-barriers`'s).
    Unmarked allocas stay private, and marked ones outside a launch are
    left alone. A launch whose tiles take more than 48 KiB (the static
    shared memory a block may have) gets them as `memref.view`s of
    `gpu.dynamic_shared_memory` at 16-byte-aligned offsets instead, and
    asks for their bytes as its `dynamic_shared_memory_size` (the runtime
    opts the kernel in with `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`);
    a launch that already asks for dynamic shared memory of its own is an
    error there, not overwritten.
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect", "mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect"];
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
    and nests with dynamic bounds or results are left alone (their
    `gptgpu` ops lowered before, by `gptc-lower-block-barriers` and
    `gptc-lower-warp-mma`: `convert-parallel-loops-to-gpu` only moves ops
    it knows into a launch).
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

def LowerBlockBarriersPass
    : Pass<"gptc-lower-block-barriers", "mlir::func::FuncOp"> {
  let summary = "gptgpu.block_barrier as gpu.barrier inside kernels (CUDA)";
  let description = [{
    CUDA only, at the loops stage, before `gptc-thread-blocks`: every
    `gptgpu.block_barrier` nested in a kernel (an `scf.parallel` nest, or a
    `gpu.launch`) becomes `gpu.barrier` at the same place, so
    `convert-parallel-loops-to-gpu` can move it into the launch it makes.
    A barrier outside every kernel (host code) is left alone.

    ```mlir
    scf.parallel (%t) = (%c0) to (%c32) step (%c1) {
      memref.store %x, %tile[%t] : memref<32xf32>
      gptgpu.block_barrier
      ...
    // =>
      memref.store %x, %tile[%t] : memref<32xf32>
      gpu.barrier
    ```
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect"];
}

def LowerWarpMmaPass : Pass<"gptc-lower-warp-mma", "mlir::func::FuncOp"> {
  let summary = "gptgpu.warp_mma and cp.async's groups as NVVM (CUDA)";
  let description = [{
    CUDA only, at the loops stage, before `gptc-thread-blocks`: every
    `gptgpu.warp_mma` becomes
    `nvvm.mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32` on the same
    registers, its four results the `llvm.extractvalue`s of the
    instruction's result struct; `gptgpu.async_copy_commit` becomes
    `nvvm.cp.async.commit.group` and `gptgpu.async_copy_wait N`
    `nvvm.cp.async.wait.group N`.

    ```mlir
    %d:4 = gptgpu.warp_mma A[%a0, %a1, %a2, %a3] B[%b0, %b1]
        C[%c0, %c1, %c2, %c3]
    // =>
    %m = nvvm.mma.sync A[%a0, %a1, %a2, %a3] B[%b0, %b1]
        C[%c0, %c1, %c2, %c3] {layoutA = #nvvm.mma_layout<row>, ...}
    %d0 = llvm.extractvalue %m[0] : !llvm.struct<(f32, f32, f32, f32)>
    ```
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect",
                           "mlir::NVVM::NVVMDialect"];
}

def VectorElementwisePass
    : Pass<"gptc-vector-elementwise", "mlir::func::FuncOp"> {
  let summary = "Several elements a work item, 16-byte loads and stores (CUDA)";
  let description = [{
    CUDA only, at the loops stage, before `gptc-thread-blocks`: an
    elementwise nest (constant bounds, a straight-line body) whose innermost
    index is used only as the last index of its loads and stores along
    contiguous rows takes `w` consecutive elements a work item, `w` =
    16 bytes over its widest element (4 for f32, 8 for bf16-only nests),
    halved until it divides the innermost extent and every row access is
    aligned to `w` elements: the layouts' static offsets and outer strides
    are multiples of `w`, and every `memref.view` back to the arena shifts
    by a multiple of the vector's bytes (the buffer plan aligns to 64).
    Each access along the row becomes one `vector.load` or `vector.store`
    (`ld.global.v4`: a warp moves 512 contiguous bytes a request), the
    element math is repeated for the `w` elements, and what does not vary
    along the row (the other indices, a row's scale) is computed once.
    Not rewritten: nests with loops or branches, gathers (an index loaded
    or computed from the innermost one), the innermost index in
    arithmetic, extents no vector width divides, unaligned views.
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::scf::SCFDialect",
    "mlir::vector::VectorDialect"
  ];
}

def WarpReductionsPass : Pass<"gptc-warp-reductions", "mlir::func::FuncOp"> {
  let summary = "A warp per row for reductions along a row (CUDA)";
  let description = [{
    CUDA only, at the loops stage, before `gptc-thread-blocks`: a nest with
    constant bounds whose work item ends in a reduction loop (at least 32
    terms, step 1) of one f32 element it loads, combines (addf, mulf,
    maximumf, minimumf) and stores every iteration, where every load that
    moves with the loop moves along the last, contiguous dimension of its
    buffer (a row sum: RMSNorm and QK-norm statistics and their backward
    sums), gets a 32-lane dimension innermost: lane l sums terms l, l + 32,
    ... in a register from the combiner's neutral element, a butterfly of
    `gpu.shuffle xor` (16, 8, 4, 2, 1) combines the lanes, and lane 0
    combines the total into the element once. `gptc-thread-blocks` then
    lays the lanes of a work item onto one warp, so a warp's loads are 32
    consecutive elements of one row (coalesced) instead of one element of
    32 rows. The order of the sum is fixed (the same bits every run, no
    atomics); it differs from the single thread's order by rounding. Not
    rewritten: loops that walk another dimension (a column sum is
    coalesced across a thread per column already), shorter loops, other
    stores, nested regions in the loop, non-f32 accumulators.
  }];
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
    results per result, part s over the elements s, s + parts, s + 2 parts,
    ... of its longest reduction dimension (a new parallel loop, so results
    x parts threads; interleaved, so that a warp's consecutive parts read
    consecutive elements),
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

def SplitKPass : Pass<"gptc-split-k", "mlir::func::FuncOp"> {
  let summary = "Split the long sum of a GEMM with a small output (CUDA)";
  let description = [{
    CUDA only, on linalg on tensors, before elementwise fusion. A weight
    gradient `Xᵀ·dY` (a `linalg.matmul` whose operands both have k as
    their leading dimension: A (k, m) and B (k, n)) has a small output and
    a long sum: R15's 768 × 768 projections sum over 65,536 tokens. cuBLAS
    computes one output tile (256 × 128 for large shapes) per
    multiprocessor, so such a GEMM keeps 18 of the H100's 132 busy.
    The pass splits k into `parts` chunks, the fewest (a power of two
    dividing k) whose output tiles fill `waves` waves of the device, with
    at least `min-chunk` terms each:
      partials[s] = A[s]ᵀ · B[s]      (one batched GEMM, f32 results)
      out         = init + Σ_s partials[s]   (in order of s, in f32)
    then rounded once to the output's type (bf16 for bf16 GEMMs, whose
    products accumulate in f32 either way). The partial products sum in a
    fixed order: the same bits every run. GEMMs whose tiles already fill
    `waves` waves, other layouts, dynamic shapes and non-float outputs are
    left alone.
  }];
  let options = [
    Option<"multiprocessors", "multiprocessors", "int64_t", "132",
           "Multiprocessors of the device (an H100 SXM has 132)">,
    Option<"waves", "waves", "int64_t", "4",
           "Split until the output tiles fill this many waves">,
    Option<"tileM", "tile-m", "int64_t", "256", "Rows of a GEMM output tile">,
    Option<"tileN", "tile-n", "int64_t", "128",
           "Columns of a GEMM output tile">,
    Option<"minChunk", "min-chunk", "int64_t", "256",
           "At least this many terms of k per part">
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
    captured by later layers' kernels through CSE) is read and computed
    again at the start of each of those kernels when nothing from the run
    to the last of them may write the buffers it reads (views of the arena
    at constant offsets whose bytes are apart, distinct arguments or
    allocations); otherwise it travels through a device scalar: the run
    stores it, each of those kernels loads it (an allocation in the step,
    which a CUDA graph's replay would find freed: no spec of models/ needs
    it). One that host code uses (a loop bound, an offset) is an error.
    Runs containing a launch, a call or an allocation stay on the host.
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect", "mlir::arith::ArithDialect"];
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
    most 255). A kernel of 128 threads with tensor-core products
    (`nvvm.mma.sync`: the flash-attention forward and dQ kernels) gets
    `nvvm.minctasm = 3` instead: 168 registers a thread, three resident
    blocks an SM. Kernels without shared tiles are left alone.
  }];
  let dependentDialects = ["mlir::NVVM::NVVMDialect"];
}

def ExternDynamicSharedPass
    : Pass<"gptc-extern-dynamic-shared", "mlir::ModuleOp"> {
  let summary = "Give a kernel's dynamic shared memory CUDA's external linkage";
  let description = [{
    After `gpu-kernel-outlining`: every `gpu.dynamic_shared_memory` in a
    `gpu.module` becomes a `memref.get_global` of one external declaration
    of the module, `memref.global "public" @gptc_dynamic_shared :
    memref<0xi8, #gpu.address_space<workgroup>>` aligned to 16 bytes, cast
    to `memref<?xi8, ...>`: in PTX `.extern .shared .align 16 .b8
    gptc_dynamic_shared[]`, the array that starts where the kernel's static
    shared memory ends and spans the launch's dynamic bytes (what CUDA
    C++'s `extern __shared__` is). MLIR's own lowering of the op makes an
    internal global of zero elements, which NVPTX demotes to a static
    `.shared` variable of its own: a block would then need one byte more
    than the launch gives it and the tiles would start inside the static
    area. Modules without the op are left alone.
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect"];
}

def KernelIndexWidthPass
    : Pass<"gptc-kernel-index-width", "mlir::gpu::GPUModuleOp"> {
  let summary = "Give a kernel 32-bit indices where every index fits";
  let description = [{
    After `gpu-kernel-outlining`, before the kernel is lowered: a
    `gpu.module` whose values of type `index` provably stay below 2^30 gets
    the data layout `#dlti.dl_spec<index = 32 : i64>`, from which
    `gptc-nvgpu-to-nvvm` and `convert-gpu-to-nvvm` take the width of index.
    Its address arithmetic is then 32-bit (`mad.lo.s32`, one `mul.wide.s32`
    into each 64-bit address; in SASS one IMAD.WIDE) instead of chains of
    64-bit adds, shifts and multiplies, each two or more SASS instructions.
    The proof is structural: every memref of global or private memory has
    a static shape and layout whose farthest element is below 2^30 and no
    element of type index (its size is the host's); every index constant is
    below 2^30 in magnitude; no index is cast from an integer wider than 32
    bits; the kernel takes no index argument (the host passes 64 bits) and
    has a known grid and block size of fewer than 2^30 threads along each
    dimension; and every index computed from the launch's ids, constants and
    loop variables alone has a range, by integer range analysis, below 2^30
    in magnitude (a block's id times a large stride fails it). An index
    that depends on memory or on a loop-carried value has no proven range:
    the bounds on the memrefs bound the addresses formed from it. Shared
    memory (at most 228 KiB) passes whatever its type.
    The margin of 2^30 keeps the sum of two indices (a loop variable and its
    step, an offset and an extent) within a signed 32-bit integer. Kernel
    arguments must use the bare-pointer calling convention, in which a
    memref is its aligned pointer whatever the index width. A module that
    already has a data layout, or fails a condition, keeps 64-bit indices
    (`explain` says why, as a remark).
  }];
  let options = [
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Remark on every module that keeps 64-bit indices, with the "
           "first reason">,
  ];
  let dependentDialects = ["mlir::DLTIDialect"];
}

def NVGPUToNVVMPass : Pass<"gptc-nvgpu-to-nvvm", "mlir::gpu::GPUModuleOp"> {
  let summary = "Lower nvgpu ops to NVVM at the module's index width";
  let description = [{
    `nvgpu.ldmatrix`, `nvgpu.mma.sync`, `nvgpu.device_async_copy`,
    `nvgpu.device_async_create_group` and `nvgpu.device_async_wait` of one
    `gpu.module` lowered to NVVM with the width of `index` that the
    module's data layout gives (see `gptc-kernel-index-width`). Upstream's
    `convert-nvgpu-to-nvvm` lowers with a 64-bit index whatever the layout,
    which would not match the 32-bit index of the rest of a narrowed kernel.
    Every nvgpu op must lower: one that cannot is an error.
  }];
  let dependentDialects = [
    "mlir::LLVM::LLVMDialect",
    "mlir::NVVM::NVVMDialect",
    "mlir::memref::MemRefDialect"
  ];
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
