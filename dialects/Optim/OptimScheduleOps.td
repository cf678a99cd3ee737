//===- OptimScheduleOps.td - optim's schedule ops ----------*- tablegen -*-===//
//
// The schedules of a step as ops: the learning-rate multiplier, Muon's
// momentum warm-up and the attention window's growth. Included by
// OptimOps.td.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_DIALECT_OPTIM_SCHEDULEOPS_TD
#define GPTC_DIALECT_OPTIM_SCHEDULEOPS_TD

def Optim_LRScheduleOp : Optim_Op<"lr_schedule", [Pure]> {
  let summary = "learning-rate multiplier: warm-up, constant, decay";
  let description = [{
    A schedule as shares of the run: `warmup_steps` and `decay_steps` (or
    `decay_fraction` of it) are counted in a run of `compiled_steps` steps
    (the spec's training.steps), and a run of N = `total_steps` steps (an
    operand: the runtime sets it from `gptc train --steps`) scales them by
    r = N / `compiled_steps`: W = r·`warmup_steps`, D = r·`decay_steps`, or
    r·`decay_fraction`·`compiled_steps`, or 0 when neither is set (no decay):

    ```
    step < W:  mult = min((step + 1) / W, 1)   # linear warm-up (R3)
    otherwise: w = D > 0 ? min((N - step) / D, 1) : 1
               mult = w + (1 - w)·floor
    ```

    so the multiplier is 1 between warm-up and decay, and decays linearly to
    `floor` at step N; past N it stays at `floor`. R3: W = 250, D = 2000,
    N = 7000, floor 0; R19–R21: W = 0, decay_fraction 0.4, floor 0.1. `step`
    and `total_steps` are 0-d i64 tensors, the result a 0-d f64 tensor.

    Example:
    ```mlir
    %mult = optim.lr_schedule %step over %total compiled_steps = 7000
        warmup_steps = 250 decay_steps = 2000 floor = 0.000000e+00
    ```
  }];
  let arguments = (ins Optim_I64Scalar:$step, Optim_I64Scalar:$total_steps,
                       I64Attr:$compiled_steps, I64Attr:$warmup_steps,
                       OptionalAttr<I64Attr>:$decay_steps,
                       OptionalAttr<F64Attr>:$decay_fraction, F64Attr:$floor);
  let results = (outs Optim_F64Scalar:$result);
  let assemblyFormat = [{
    $step `over` $total_steps `compiled_steps` `=` $compiled_steps
    `warmup_steps` `=` $warmup_steps
    (`decay_steps` `=` $decay_steps^)? (`decay_fraction` `=` $decay_fraction^)?
    `floor` `=` $floor attr-dict
  }];
  let hasVerifier = 1;
}

def Optim_MomentumWarmupOp : Optim_Op<"momentum_warmup", [Pure]> {
  let summary = "Muon momentum ramped linearly over the first steps";
  let description = [{
    With S = r·`steps`, r = N / `compiled_steps` and N = `total_steps` (the
    run's length, an operand; a share of the run, as `optim.lr_schedule`):

    ```
    f = min(step / S, 1)
    m = (1 - f)·start + f·end
    ```

    R9 on: start 0.85, end 0.95, over 500 steps (300 from R13). `step` and
    `total_steps` are 0-d i64 tensors, the result a 0-d f64 tensor.

    Example:
    ```mlir
    %m = optim.momentum_warmup %step over %total compiled_steps = 1480
        start = 8.500000e-01 end = 9.500000e-01 steps = 300
    ```
  }];
  let arguments = (ins Optim_I64Scalar:$step, Optim_I64Scalar:$total_steps,
                       I64Attr:$compiled_steps, F64Attr:$start, F64Attr:$end,
                       I64Attr:$steps);
  let results = (outs Optim_F64Scalar:$result);
  let assemblyFormat = [{
    $step `over` $total_steps `compiled_steps` `=` $compiled_steps
    `start` `=` $start `end` `=` $end `steps` `=` $steps attr-dict
  }];
  let hasVerifier = 1;
}

def Optim_WindowScheduleOp : Optim_Op<"window_schedule", [Pure]> {
  let summary = "sliding-window size grown over training, in tokens";
  let description = [{
    With N = `total_steps` (the run's length, an operand) and
    g = `granularity`:

    ```
    x = start + (end - start)·step / N
    floor: window = g·floor(x / g)
    ceil:  window = g·ceil(x / g)
    ```

    R13: start 64, end 1792, g 64, floor. R19–R21: start 0, end 1728,
    g 128, ceil (`next_multiple_of`). `step` and `total_steps` are 0-d i64
    tensors; the result is a 0-d i64 tensor of tokens, the `window` operand
    of `gpt.attention`.

    Example:
    ```mlir
    %w = optim.window_schedule %step over %total start = 0 end = 1728
        granularity = 128 rounding = ceil
    ```
  }];
  let arguments = (ins Optim_I64Scalar:$step, Optim_I64Scalar:$total_steps,
                       I64Attr:$start, I64Attr:$end, I64Attr:$granularity,
                       Optim_RoundingAttr:$rounding);
  let results = (outs Optim_I64Scalar:$result);
  let assemblyFormat = [{
    $step `over` $total_steps `start` `=` $start `end` `=` $end
    `granularity` `=` $granularity `rounding` `=` $rounding attr-dict
  }];
  let hasVerifier = 1;
}

#endif // GPTC_DIALECT_OPTIM_SCHEDULEOPS_TD
