//===- CodegenPasses.td - gptc passes ----------------------*- tablegen -*-===//
//
// Stage 7: the code generation both targets share. Included by passes/Passes.td
// (one pass-declaration file for the library).
//
//===----------------------------------------------------------------------===//

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
    Option<"allAccumulations", "all-accumulations", "bool",
           /*default=*/"false",
           "Also loops with several accumulators, each to its own memref "
           "(CUDA: RMSNorm's backward sums two per row)">,
  ];
  let dependentDialects = ["mlir::scf::SCFDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::arith::ArithDialect"];
}
