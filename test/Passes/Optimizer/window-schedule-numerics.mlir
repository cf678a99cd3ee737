// The lowered window schedule (exact i64 gpt arithmetic, gptc-lower-optim)
// computes what the op's reference semantics (reference/, written from the
// op's description in long double) compute, at the start, inside, at the
// end and past the end of training, for floor and ceil rounding.
// N = 10 (the run's length, an operand), 32 -> 224 tokens in granules of
// 32; R19-R21's form: 0 -> 1728, granules of 128, ceil.

// RUN: gptc-ref-run --function=windows --arg=0=0 --arg=1=10 %s | FileCheck %s --check-prefix=S0
// RUN: gptc-opt --gptc-lower-optim %s | gptc-ref-run --function=windows --arg=0=0 --arg=1=10 | FileCheck %s --check-prefix=S0
// S0: result #0: tensor<i64>
// S0-NEXT: 32
// S0: result #1: tensor<i64>
// S0-NEXT: 128

// RUN: gptc-ref-run --function=windows --arg=0=3 --arg=1=10 %s | FileCheck %s --check-prefix=S3
// RUN: gptc-opt --gptc-lower-optim %s | gptc-ref-run --function=windows --arg=0=3 --arg=1=10 | FileCheck %s --check-prefix=S3
// x = 32 + 192 * 3 / 10 = 89.6 -> floor to 64; 1728 * 0.3 = 518.4 -> ceil 640
// S3: result #0: tensor<i64>
// S3-NEXT: 64
// S3: result #1: tensor<i64>
// S3-NEXT: 640

// RUN: gptc-ref-run --function=windows --arg=0=5 --arg=1=10 %s | FileCheck %s --check-prefix=S5
// RUN: gptc-opt --gptc-lower-optim %s | gptc-ref-run --function=windows --arg=0=5 --arg=1=10 | FileCheck %s --check-prefix=S5
// x = 128 exactly: floor keeps 128; 864 = 6.75 granules -> ceil 896
// S5: result #0: tensor<i64>
// S5-NEXT: 128
// S5: result #1: tensor<i64>
// S5-NEXT: 896

// RUN: gptc-ref-run --function=windows --arg=0=10 --arg=1=10 %s | FileCheck %s --check-prefix=END
// RUN: gptc-opt --gptc-lower-optim %s | gptc-ref-run --function=windows --arg=0=10 --arg=1=10 | FileCheck %s --check-prefix=END
// RUN: gptc-ref-run --function=windows --arg=0=25 --arg=1=10 %s | FileCheck %s --check-prefix=END
// RUN: gptc-opt --gptc-lower-optim %s | gptc-ref-run --function=windows --arg=0=25 --arg=1=10 | FileCheck %s --check-prefix=END
// Past the end the window stays at its last size.

// The same share of a run twice as long (step 6 of 20) has step 3 of 10's
// windows: the schedule spans whatever run the operand says.
// RUN: gptc-ref-run --function=windows --arg=0=6 --arg=1=20 %s | FileCheck %s --check-prefix=S3
// RUN: gptc-opt --gptc-lower-optim %s | gptc-ref-run --function=windows --arg=0=6 --arg=1=20 | FileCheck %s --check-prefix=S3
// END: result #0: tensor<i64>
// END-NEXT: 224
// END: result #1: tensor<i64>
// END-NEXT: 1792

// The lowering leaves no optim op behind.
// RUN: gptc-opt --gptc-lower-optim %s | FileCheck %s --check-prefix=LOWERED
// LOWERED-LABEL: func.func @windows
// LOWERED-NOT: optim.
// LOWERED: gpt.div
// LOWERED: return

func.func @windows(%step: tensor<i64>, %total: tensor<i64>)
    -> (tensor<i64>, tensor<i64>) {
  %a = optim.window_schedule %step over %total start = 32 end = 224
      granularity = 32 rounding = floor
  %b = optim.window_schedule %step over %total start = 0 end = 1728
      granularity = 128 rounding = ceil
  return %a, %b : tensor<i64>, tensor<i64>
}
