//===- GPTGPUOps.td - gptgpu operations --------------------*- tablegen -*-===//

#ifndef GPTC_DIALECT_GPTGPU_OPS_TD
#define GPTC_DIALECT_GPTGPU_OPS_TD

include "GPTGPUDialect.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def GPTGPU_BlockBarrierOp : GPTGPU_Op<"block_barrier",
    [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "all threads of a thread block wait for each other";
  let description = [{
    In a kernel whose work item is a thread block (the flash-attention and
    cross-entropy kernels lowered with `gptc-lower-to-linalg{gpu-kernels}`):
    every thread of the block arrives here before any goes on, so the
    shared tiles the block wrote before it are complete for every thread
    after it, and no thread overwrites a tile another still reads. It reads
    and writes memory as far as other passes can tell (nothing moves across
    it; the buffer passes accept it). `gptc-lower-block-barriers` lowers it
    to `gpu.barrier` inside a kernel (an `scf.parallel` nest or a
    `gpu.launch`).

    Example:
    ```mlir
    gptgpu.block_barrier
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def GPTGPU_AsyncCopyCommitOp : GPTGPU_Op<"async_copy_commit",
    [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "this thread's asynchronous copies so far become one group";
  let description = [{
    PTX's `cp.async.commit_group`: the `nvgpu.device_async_copy`s this
    thread issued since its last commit form one group, which
    `gptgpu.async_copy_wait` can wait for. The tensor-core attention
    kernels prefetch the next K/V (or Q/dO) tile this way while the
    current one computes. Unlike `nvvm.cp.async.commit.group` it states
    its memory effects (it orders the copies: nothing moves across it, and
    the buffer passes accept it); `gptc-lower-warp-mma` lowers it to that.
    Example:
    ```mlir
    gptgpu.async_copy_commit
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def GPTGPU_AsyncCopyWaitOp : GPTGPU_Op<"async_copy_wait",
    [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "wait until at most `pending` copy groups are in flight";
  let description = [{
    PTX's `cp.async.wait_group pending`: this thread waits until every
    committed group of its asynchronous copies but the `pending` most
    recent ones is complete, so their shared-memory destinations hold the
    data (for this thread: other threads' copies need a block barrier
    after their own waits). It reads and writes memory as far as other
    passes can tell; `gptc-lower-warp-mma` lowers it to
    `nvvm.cp.async.wait.group`.
    Example:
    ```mlir
    gptgpu.async_copy_wait 0
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntNonNegative]>:$pending);
  let assemblyFormat = "$pending attr-dict";
}

def GPTGPU_WarpMmaOp : GPTGPU_Op<"warp_mma", [Pure]> {
  let summary = "one warp's bf16 16x8x16 matrix multiply-accumulate";
  let description = [{
    d = a b + c for a 16x16 bf16 `a`, a 16x8 bf16 `b` and a 16x8 f32 `c`
    held by the 32 lanes of a warp in the fragments of PTX's
    `mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32`: per lane four
    32-bit registers of `a` (two bf16 each), two of `b` and four f32 of `c`
    and of the result. Every lane of the warp must execute it together
    (the tensor-core attention kernels, passes/GPU/AttentionTensorCores.h,
    run it in uniform control flow only). Unlike `nvvm.mma.sync` it states
    that it has no memory effects, so the buffer passes accept it;
    `gptc-lower-warp-mma` lowers it to `nvvm.mma.sync`.

    Example:
    ```mlir
    %d:4 = gptgpu.warp_mma A[%a0, %a1, %a2, %a3] B[%b0, %b1]
        C[%c0, %c1, %c2, %c3]
    ```
  }];
  let arguments = (ins I32:$a0, I32:$a1, I32:$a2, I32:$a3, I32:$b0, I32:$b1,
                       F32:$c0, F32:$c1, F32:$c2, F32:$c3);
  let results = (outs F32:$d0, F32:$d1, F32:$d2, F32:$d3);
  // The results are always four f32: a builder that takes only the
  // registers.
  let builders = [
    OpBuilder<(ins "Value":$a0, "Value":$a1, "Value":$a2, "Value":$a3,
                   "Value":$b0, "Value":$b1, "Value":$c0, "Value":$c1,
                   "Value":$c2, "Value":$c3), [{
      Type f32 = $_builder.getF32Type();
      build($_builder, $_state, f32, f32, f32, f32, a0, a1, a2, a3, b0, b1,
            c0, c1, c2, c3);
    }]>
  ];
  let assemblyFormat = [{
    `A` `[` $a0 `,` $a1 `,` $a2 `,` $a3 `]` `B` `[` $b0 `,` $b1 `]`
    `C` `[` $c0 `,` $c1 `,` $c2 `,` $c3 `]` attr-dict
  }];
}

#endif // GPTC_DIALECT_GPTGPU_OPS_TD
