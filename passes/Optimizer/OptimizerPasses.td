//===- OptimizerPasses.td - gptc passes --------------------*- tablegen -*-===//
//
// Stage 3: the optimizer as gpt math. Included by passes/Passes.td (one pass-
// declaration file for the library).
//
//===----------------------------------------------------------------------===//

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
