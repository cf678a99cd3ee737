//===- CPUPasses.td - gptc's CPU codegen passes ------------*- tablegen -*-===//
//
// Included by passes/Passes.td (one pass-declaration file for the library).
//
//===----------------------------------------------------------------------===//

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
