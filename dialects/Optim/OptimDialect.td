//===- OptimDialect.td - The optim dialect -----------------*- tablegen -*-===//
//
// The `optim` dialect: optimizer updates and schedules, at the tensor level.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_DIALECT_OPTIM_DIALECT_TD
#define GPTC_DIALECT_OPTIM_DIALECT_TD

include "mlir/IR/OpBase.td"

def Optim_Dialect : Dialect {
  let name = "optim";
  let cppNamespace = "::mlir::optim";
  let summary = "Optimizer updates (Muon, Adam) and training schedules.";
  let description = [{
    The `optim` dialect holds the parameter update of a training step as
    value-semantic ranked tensors: parameters, gradients and optimizer state
    go in, new values come out. It has the update rules (`optim.muon`,
    `optim.adam`), the orthogonalisations Muon is built on
    (`optim.newton_schulz`, `optim.svd_orthogonalize`), and the schedules
    that turn the step counter into a learning-rate multiplier, a momentum
    or an attention window (`optim.lr_schedule`, `optim.momentum_warmup`,
    `optim.window_schedule`).

    The step counter is a 0-d `i64` tensor holding the number of steps
    already taken (0 for the first step); scalars the updates read (learning
    rate, momentum) are 0-d `f32` tensors, so schedules are computed in the
    step rather than baked in at compile time.
  }];
  let useDefaultAttributePrinterParser = 1;
}

class Optim_Op<string mnemonic, list<Trait> traits = []>
    : Op<Optim_Dialect, mnemonic, traits>;

/// Parameters, gradients and optimizer state.
def Optim_FloatTensor : RankedTensorOf<[F32, BF16, F64]>;

/// A 0-d f64 tensor: a learning rate, a momentum or a schedule multiplier,
/// computed in f64 as PyTorch's optimizers compute theirs in Python floats;
/// an update rounds it once, to the parameter's type, where it applies it.
def Optim_F64Scalar : 0DTensorOf<[F64]>,
    BuildableType<"::mlir::RankedTensorType::get({}, $_builder.getF64Type())">;

/// A 0-d i64 tensor: the step counter, or a window in tokens.
def Optim_I64Scalar : 0DTensorOf<[I64]>,
    BuildableType<"::mlir::RankedTensorType::get({}, "
                  "$_builder.getIntegerType(64))">;

#endif // GPTC_DIALECT_OPTIM_DIALECT_TD
