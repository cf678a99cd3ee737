// RUN: not gptc-opt %s --pass-pipeline='builtin.module(gptc-pipeline-options-error{message="the options contradict"})' 2>&1 | FileCheck %s
// RUN: not gptc-opt %s --gptc-pipeline='start-after=linalg stop-after=grad' 2>&1 | FileCheck %s --check-prefix=ORDER
// RUN: gptc-opt %s --gptc-pipeline='stop-after=gpt' | FileCheck %s --check-prefix=FINE

// gptc-pipeline-options-error fails with its message, on the module.
// CHECK: error: the options contradict

// gptc-pipeline with start-after not before stop-after is that pass.
// ORDER: error: gptc-pipeline: start-after=linalg must come before stop-after=grad

// Must not fire: consistent options run the pipeline (here: no pass at
// all up to the frontend's stage) and the module comes out unchanged.
// FINE: module
// FINE-NOT: error
module {
}
