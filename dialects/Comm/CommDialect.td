//===- CommDialect.td - The comm dialect -------------------*- tablegen -*-===//
//
// The `comm` dialect: collective communication between data-parallel ranks.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_DIALECT_COMM_DIALECT_TD
#define GPTC_DIALECT_COMM_DIALECT_TD

include "mlir/IR/OpBase.td"

def Comm_Dialect : Dialect {
  let name = "comm";
  let cppNamespace = "::mlir::comm";
  let summary = "Collectives between the ranks of a data-parallel run.";
  let description = [{
    The `comm` dialect holds the collectives of distributed training as
    value-semantic ranked tensors: gradient reduction (`comm.all_reduce`,
    `comm.reduce_scatter`) and the gathering of sharded results
    (`comm.all_gather`). Every rank runs the same program, so every rank
    reaches the same collectives in the same order.

    Collectives are not computation: they lower to calls into gptc's
    runtime (NCCL on GPU, MPI on CPU), never to kernels. With one rank
    they are the identity (or a copy).
  }];
  let useDefaultAttributePrinterParser = 1;
}

class Comm_Op<string mnemonic, list<Trait> traits = []>
    : Op<Comm_Dialect, mnemonic, traits>;

def Comm_Tensor : RankedTensorOf<[F32, BF16, F64, I32, I64]>;

#endif // GPTC_DIALECT_COMM_DIALECT_TD
