//===- JobEnvironment.h - What a rank knows of its job before MPI -*- C++ -*-=//
//
// Before MPI starts, a process tells from its launcher's environment
// whether it is a rank of a job and which: Open MPI's mpirun
// (OMPI_COMM_WORLD_*), a PMIx or PMI server (PMIX_RANK, PMI_RANK: srun
// --mpi=pmix, MPICH's launchers) or a Slurm step (srun: SLURM_STEP_NUM_TASKS,
// SLURM_PROCID, SLURM_LOCALID, SLURM_NODEID, SLURM_STEP_TASKS_PER_NODE).
// MPI itself forms the job's world through PMIx/PMI; the Slurm variables
// say what srun started, so that a step srun started without PMI is an
// error and not N jobs of one rank each.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_RUNTIME_COMM_JOBENVIRONMENT_H
#define GPTC_RUNTIME_COMM_JOBENVIRONMENT_H

#include <cstdint>
#include <optional>
#include <string>

namespace gptc {
namespace runtime {
namespace comm {

/// Whether an MPI launcher started this process (mpirun, or a PMIx/PMI
/// server that MPI_Init can join).
bool launchedByMpi();

/// A task of a Slurm job step (srun), from Slurm's variables.
struct SlurmStep {
  int64_t tasks = 1;      ///< SLURM_STEP_NUM_TASKS
  int64_t rank = 0;       ///< SLURM_PROCID
  int64_t localRank = 0;  ///< SLURM_LOCALID
  int64_t localTasks = 1; ///< this node's share of SLURM_STEP_TASKS_PER_NODE
};

/// This process's place in srun's step; none outside one (a batch
/// script's own shell sets SLURM_NTASKS and SLURM_PROCID but no step's
/// variables) and none for mpirun's ranks, which inherit the variables of
/// the step they were started from.
std::optional<SlurmStep> slurmStep();

/// The tasks a node runs, from Slurm's "2(x3),1" (nodes 0-2 run 2, node 3
/// runs 1); 0 when `node` is past the list or the text is not Slurm's.
int64_t tasksOnNode(const std::string &tasksPerNode, int64_t node);

/// Why this process cannot join its job, or empty: srun started several
/// tasks without PMI, so MPI would give each a world of its own.
std::string unjoinableJob();

/// This rank's place on its node and the node's ranks (mpirun's, srun's;
/// 0 of 1 alone).
int64_t localRank();
int64_t localRanks();

/// Whether this process is a rank other than 0 of a launcher's job.
bool laterRank();

/// Whether a launcher already started this process as one rank of
/// several: mpirun or a PMI server, or an srun step of several tasks (a
/// step of one, such as `srun --pty bash`, is a shell to launch from).
bool startedAsRank();

} // namespace comm
} // namespace runtime
} // namespace gptc

#endif // GPTC_RUNTIME_COMM_JOBENVIRONMENT_H
