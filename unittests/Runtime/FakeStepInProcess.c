/*===- FakeStepInProcess.c - The fake step with fake_* names ------*- C -*-===*/

#define FAKE_STEP_IN_PROCESS 1
#include "FakeStep.c"
