//===- BuffersPasses.td - gptc passes ----------------------*- tablegen -*-===//
//
// Stage 5: buffers. Included by passes/Passes.td (one pass-declaration file for
// the library).
//
//===----------------------------------------------------------------------===//

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

def CopyToLinalgPass : Pass<"gptc-copy-to-linalg", "mlir::func::FuncOp"> {
  let summary = "Turn memref.copy into linalg.copy (a generated kernel)";
  let description = [{
    Buffer copies made by bufferization become `linalg.copy`, so they lower
    to loop nests like every other kernel (on both targets) instead of
    calls into MLIR's C runner utilities.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
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
