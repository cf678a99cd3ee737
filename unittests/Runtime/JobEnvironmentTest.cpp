//===- JobEnvironmentTest.cpp - What a rank knows of its job before MPI ---===//
//
// Slurm's and mpirun's variables, set as the launchers set them: which
// rank this is, its place on the node, and a step that MPI cannot join.
//
//===----------------------------------------------------------------------===//

#include "runtime/comm/JobEnvironment.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <initializer_list>
#include <string>
#include <utility>

namespace gptc::runtime::comm {
namespace {

/// Clears every launcher variable for the test, sets `vars`, and clears
/// them again afterwards.
class JobEnvironment : public ::testing::Test {
protected:
  static constexpr const char *kAll[] = {"OMPI_COMM_WORLD_SIZE",
                                         "OMPI_COMM_WORLD_RANK",
                                         "OMPI_COMM_WORLD_LOCAL_RANK",
                                         "OMPI_COMM_WORLD_LOCAL_SIZE",
                                         "PMIX_RANK",
                                         "PMI_RANK",
                                         "PMI_SIZE",
                                         "MPI_LOCALRANKID",
                                         "MPI_LOCALNRANKS",
                                         "SLURM_STEP_NUM_TASKS",
                                         "SLURM_PROCID",
                                         "SLURM_LOCALID",
                                         "SLURM_NODEID",
                                         "SLURM_STEP_TASKS_PER_NODE",
                                         "SLURM_NTASKS"};
  void SetUp() override { clear(); }
  void TearDown() override { clear(); }
  static void clear() {
    for (const char *var : kAll)
      unsetenv(var);
  }
  static void
  set(std::initializer_list<std::pair<const char *, const char *>> vars) {
    for (auto [name, value] : vars)
      setenv(name, value, 1);
  }
};

TEST_F(JobEnvironment, AloneIsRankZeroOfOne) {
  EXPECT_FALSE(launchedByMpi());
  EXPECT_FALSE(slurmStep());
  EXPECT_EQ(localRank(), 0);
  EXPECT_EQ(localRanks(), 1);
  EXPECT_FALSE(laterRank());
  EXPECT_EQ(unjoinableJob(), "");
}

TEST_F(JobEnvironment, SlurmTasksPerNodeAsSlurmWritesThem) {
  EXPECT_EQ(tasksOnNode("8", 0), 8);
  EXPECT_EQ(tasksOnNode("8(x2)", 1), 8);
  EXPECT_EQ(tasksOnNode("2(x3),1", 0), 2);
  EXPECT_EQ(tasksOnNode("2(x3),1", 2), 2);
  EXPECT_EQ(tasksOnNode("2(x3),1", 3), 1);
  EXPECT_EQ(tasksOnNode("2(x3),1", 4), 0);
  EXPECT_EQ(tasksOnNode("3,5", 1), 5);
  for (const char *bad : {"", "x", "2(3)", "2(x)", "2(x2", "2(x2)y", "-1"})
    EXPECT_EQ(tasksOnNode(bad, 0), 0) << bad;
}

TEST_F(JobEnvironment, ATaskOfAnSrunStepWithPmix) {
  // Task 9 of 16 on two nodes of 8: the second node, its 2nd task.
  set({{"SLURM_STEP_NUM_TASKS", "16"},
       {"SLURM_PROCID", "9"},
       {"SLURM_LOCALID", "1"},
       {"SLURM_NODEID", "1"},
       {"SLURM_STEP_TASKS_PER_NODE", "8(x2)"},
       {"PMIX_RANK", "9"}});
  ASSERT_TRUE(slurmStep());
  EXPECT_EQ(slurmStep()->tasks, 16);
  EXPECT_EQ(slurmStep()->rank, 9);
  EXPECT_TRUE(launchedByMpi());
  EXPECT_EQ(localRank(), 1);
  EXPECT_EQ(localRanks(), 8);
  EXPECT_TRUE(laterRank());
  EXPECT_EQ(unjoinableJob(), "");
}

TEST_F(JobEnvironment, AnSrunStepWithoutPmiCannotBeJoined) {
  set({{"SLURM_STEP_NUM_TASKS", "2"}, {"SLURM_PROCID", "1"}});
  EXPECT_FALSE(launchedByMpi());
  EXPECT_TRUE(laterRank());
  EXPECT_NE(unjoinableJob().find("srun --mpi=pmix"), std::string::npos);
  // One task alone is a job of one rank.
  set({{"SLURM_STEP_NUM_TASKS", "1"}, {"SLURM_PROCID", "0"}});
  EXPECT_EQ(unjoinableJob(), "");
}

TEST_F(JobEnvironment, ABatchScriptIsNotAStep) {
  // sbatch's shell: the job's task count and a process id, no step.
  set({{"SLURM_NTASKS", "16"}, {"SLURM_PROCID", "0"}});
  EXPECT_FALSE(slurmStep());
  EXPECT_EQ(unjoinableJob(), "");
}

TEST_F(JobEnvironment, MpirunsVariablesComeFirst) {
  set({{"OMPI_COMM_WORLD_SIZE", "4"},
       {"OMPI_COMM_WORLD_RANK", "0"},
       {"OMPI_COMM_WORLD_LOCAL_RANK", "3"},
       {"OMPI_COMM_WORLD_LOCAL_SIZE", "4"},
       {"SLURM_STEP_NUM_TASKS", "1"},
       {"SLURM_PROCID", "0"}});
  EXPECT_TRUE(launchedByMpi());
  EXPECT_EQ(localRank(), 3);
  EXPECT_EQ(localRanks(), 4);
  EXPECT_FALSE(laterRank());
  // mpirun's ranks inherit the step variables of the shell they were
  // started from (srun --pty bash): they are not that step's tasks.
  EXPECT_FALSE(slurmStep());
  EXPECT_TRUE(startedAsRank());
  EXPECT_EQ(unjoinableJob(), "");
}

TEST_F(JobEnvironment, AStepOfOneTaskIsAShellToLaunchFrom) {
  set({{"SLURM_STEP_NUM_TASKS", "1"}, {"SLURM_PROCID", "0"}});
  ASSERT_TRUE(slurmStep());
  EXPECT_FALSE(startedAsRank());
  set({{"SLURM_STEP_NUM_TASKS", "2"}});
  EXPECT_TRUE(startedAsRank());
}

} // namespace
} // namespace gptc::runtime::comm
