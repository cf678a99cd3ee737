//===- CommOps.td - comm dialect ops -----------------------*- tablegen -*-===//
//
// The reduction kind enum, then the collectives.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_DIALECT_COMM_OPS_TD
#define GPTC_DIALECT_COMM_OPS_TD

include "dialects/Comm/CommDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

def Comm_ReduceSum : I32EnumAttrCase<"sum", 0>;
def Comm_ReduceAvg : I32EnumAttrCase<"avg", 1>;
def Comm_ReduceMax : I32EnumAttrCase<"max", 2>;
def Comm_ReduceMin : I32EnumAttrCase<"min", 3>;
def Comm_ReduceProd : I32EnumAttrCase<"prod", 4>;
def Comm_ReductionKind : I32EnumAttr<"ReductionKind",
    "how a collective combines the ranks' values",
    [Comm_ReduceSum, Comm_ReduceAvg, Comm_ReduceMax, Comm_ReduceMin,
     Comm_ReduceProd]> {
  let cppNamespace = "::mlir::comm";
  let genSpecializedAttr = 0;
}
def Comm_ReductionKindAttr
    : EnumAttr<Comm_Dialect, Comm_ReductionKind, "reduction">;

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

def Comm_AllReduceOp : Comm_Op<"all_reduce",
    [Pure, SameOperandsAndResultType]> {
  let summary = "combine a tensor across all ranks, result on every rank";
  let description = [{
    Every rank contributes a tensor of the same type and receives the
    elementwise reduction (`sum`, `avg`, `max`, `min` or `prod`) of all the
    ranks' tensors. `avg` needs a floating-point element type. Lowers to a
    runtime call (ncclAllReduce on GPU, MPI_Allreduce on CPU), never to a
    kernel.

    Example:
    ```mlir
    %g = comm.all_reduce avg %local : tensor<768x3072xf32>
    ```
  }];
  let arguments = (ins Comm_ReductionKindAttr:$kind, Comm_Tensor:$input);
  let results = (outs Comm_Tensor:$result);
  let assemblyFormat = "$kind $input attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Comm_ReduceScatterOp : Comm_Op<"reduce_scatter", [Pure]> {
  let summary = "combine a tensor across ranks, each rank keeps one shard";
  let description = [{
    Every rank contributes a tensor of the input type; the elementwise
    reduction over ranks is cut into `world_size` equal shards along
    dimension 0 and rank r receives shard r. So the result is the input with
    dimension 0 divided by `world_size` (which must divide it). `avg` needs
    a floating-point element type. Lowers to a runtime call
    (ncclReduceScatter on GPU, MPI_Reduce_scatter_block on CPU), never to a
    kernel.

    Example:
    ```mlir
    %s = comm.reduce_scatter sum %x world_size = 8
        : tensor<16x4xf32> -> tensor<2x4xf32>
    ```
  }];
  let arguments = (ins Comm_ReductionKindAttr:$kind, Comm_Tensor:$input,
                       I64Attr:$world_size);
  let results = (outs Comm_Tensor:$result);
  let assemblyFormat = [{
    $kind $input `world_size` `=` $world_size attr-dict `:` type($input) `->`
    type($result)
  }];
  let hasVerifier = 1;
}

def Comm_AllGatherOp : Comm_Op<"all_gather", [Pure]> {
  let summary = "concatenate every rank's tensor along dimension 0";
  let description = [{
    Every rank contributes a tensor of the input type and receives the
    concatenation of all of them in rank order along dimension 0, so the
    result is the input with dimension 0 multiplied by `world_size`. Used
    to share the Muon updates each rank computed for its own parameters.
    Lowers to a runtime call (ncclAllGather on GPU, MPI_Allgather on CPU),
    never to a kernel.

    Example:
    ```mlir
    %all = comm.all_gather %mine world_size = 8
        : tensor<2x4xf32> -> tensor<16x4xf32>
    ```
  }];
  let arguments = (ins Comm_Tensor:$input, I64Attr:$world_size);
  let results = (outs Comm_Tensor:$result);
  let assemblyFormat = [{
    $input `world_size` `=` $world_size attr-dict `:` type($input) `->`
    type($result)
  }];
  let hasVerifier = 1;
}

def Comm_ShardOp : Comm_Op<"shard", [Pure]> {
  let summary = "this rank's part of a tensor every rank holds in full";
  let description = [{
    Every rank holds the same tensor; the input is cut into `world_size`
    equal shards along dimension 0 and rank r keeps shard r. No data moves
    between ranks: it is the local half of a work split whose results are
    gathered again with `comm.all_gather` (distributed Muon: each rank
    orthogonalises its share of the hidden matrices). `world_size` must
    divide dimension 0. Lowers to a runtime call (the rank is known only
    at run time), never to a kernel.

    Example:
    ```mlir
    %mine = comm.shard %all world_size = 2
        : tensor<4x64x64xf32> -> tensor<2x64x64xf32>
    ```
  }];
  let arguments = (ins Comm_Tensor:$input, I64Attr:$world_size);
  let results = (outs Comm_Tensor:$result);
  let assemblyFormat = [{
    $input `world_size` `=` $world_size attr-dict `:` type($input) `->`
    type($result)
  }];
  let hasVerifier = 1;
}

#endif // GPTC_DIALECT_COMM_OPS_TD
