//===- CostModelTest.cpp - H100 occupancy and roofline of --stats ---------===//
//
// driver/report/CostModel.h on hand-computed cases.
//
//===----------------------------------------------------------------------===//

#include "driver/report/CostModel.h"

#include <gtest/gtest.h>

using namespace gptc::cost;

namespace {

TEST(CostModelTest, OccupancyLimitedByWarps) {
  // 8 warps per block: 8 blocks fill 64 warps; registers allow 8 too.
  Occupancy occ = occupancyH100(256, 32, 0);
  EXPECT_EQ(occ.blocksPerSM, 8);
  EXPECT_DOUBLE_EQ(occ.fraction, 1.0);
  EXPECT_EQ(occ.limiter, "warps");
}

TEST(CostModelTest, OccupancyLimitedByRegisters) {
  // 64 registers x 32 lanes = 2048 per warp: 32 warps, one 32-warp block.
  Occupancy occ = occupancyH100(1024, 64, 0);
  EXPECT_EQ(occ.blocksPerSM, 1);
  EXPECT_DOUBLE_EQ(occ.fraction, 0.5);
  EXPECT_EQ(occ.limiter, "registers");
  // 40 registers round up to 1280 per warp: 51 warps, 17 blocks of 3.
  occ = occupancyH100(96, 40, 0);
  EXPECT_EQ(occ.blocksPerSM, 17);
  EXPECT_DOUBLE_EQ(occ.fraction, 51.0 / 64.0);
  EXPECT_EQ(occ.limiter, "registers");
}

TEST(CostModelTest, OccupancyLimitedByBlocks) {
  // One thread per block: 32 blocks of one warp each, half the SM.
  Occupancy occ = occupancyH100(1, 16, 0);
  EXPECT_EQ(occ.blocksPerSM, 32);
  EXPECT_DOUBLE_EQ(occ.fraction, 0.5);
  EXPECT_EQ(occ.limiter, "blocks");
}

TEST(CostModelTest, OccupancyLimitedBySharedMemory) {
  // 48 KiB + 1 KiB reserved = 50176 bytes: 4 blocks in 228 KiB.
  Occupancy occ = occupancyH100(128, 0, 48 * 1024);
  EXPECT_EQ(occ.blocksPerSM, 4);
  EXPECT_DOUBLE_EQ(occ.fraction, 0.25);
  EXPECT_EQ(occ.limiter, "shared");
  // 100 bytes round up to 128: 1152 per block, 202 fit; blocks limit.
  EXPECT_EQ(occupancyH100(32, 0, 100).limiter, "blocks");
}

TEST(CostModelTest, BlocksThatCannotLaunch) {
  EXPECT_EQ(occupancyH100(2048, 32, 0).blocksPerSM, 0);
  EXPECT_EQ(occupancyH100(32, 256, 0).blocksPerSM, 0);
  EXPECT_EQ(occupancyH100(32, 32, 228 * 1024).limiter, "none");
  EXPECT_DOUBLE_EQ(occupancyH100(32, 32, 228 * 1024).fraction, 0.0);
}

TEST(CostModelTest, LaunchEfficiency) {
  // One lane of 32, enough warps to fill the schedulers.
  EXPECT_DOUBLE_EQ(launchEfficiency(1, 32768), 1.0 / 32);
  // Full warps, 8 of the 528 scheduler slots.
  EXPECT_DOUBLE_EQ(launchEfficiency(256, 256), 8.0 / 528);
  EXPECT_DOUBLE_EQ(launchEfficiency(256, 256 * 1000), 1.0);
}

TEST(CostModelTest, KernelRoofline) {
  // 67 TFLOP in one second of compute; 3.35 GB at half efficiency in 2 ms.
  EXPECT_DOUBLE_EQ(kernelSeconds(67e12, 1e9, 1.0), 1.0 + 3e-6);
  EXPECT_DOUBLE_EQ(kernelSeconds(1e3, 3.35e9, 0.5), 2e-3 + 3e-6);
  EXPECT_DOUBLE_EQ(kernelSeconds(0, 0, 1.0), 3e-6);
}

TEST(CostModelTest, GemmRoofline) {
  // bf16 4096^3: 137.4 GFLOP at 989 TFLOP/s (compute bound; 100.7 MB).
  double flops = 2.0 * 4096 * 4096 * 4096;
  EXPECT_DOUBLE_EQ(gemmBytes(4096, 4096, 4096, 1, 2, false),
                   3.0 * 4096 * 4096 * 2);
  EXPECT_DOUBLE_EQ(gemmSeconds(4096, 4096, 4096, 1, 2, false),
                   flops / 989e12 + 3e-6);
  // f32 64^3 batch 2 reading C: 4 matrices of 16 KiB each per batch,
  // memory bound (1.05 MFLOP / 67 TFLOP/s is 15.6 ns; 131 KB is 39 ns).
  EXPECT_DOUBLE_EQ(gemmBytes(64, 64, 64, 2, 4, true), 2.0 * 4 * 4096 * 4);
  EXPECT_DOUBLE_EQ(gemmSeconds(64, 64, 64, 2, 4, true),
                   131072.0 / 3.35e12 + 3e-6);
  EXPECT_DOUBLE_EQ(gemmPeakFlops(4), 67e12);
}

TEST(CostModelTest, ModelFlopUtilisation) {
  EXPECT_DOUBLE_EQ(mfu(989e12 * 0.5, 1.0), 0.5);
  EXPECT_DOUBLE_EQ(mfu(1.0, 0.0), 0.0);
}

} // namespace
