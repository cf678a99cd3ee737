#!/bin/bash
# What srun --mpi=pmix gives each task, made from one of mpirun's processes:
# PMIx's server (mpirun's, left as it is), Slurm's step variables from
# mpirun's, and none of mpirun's own OMPI_COMM_WORLD_* variables. The step's
# task count is SRUN_LIKE_TASKS when set (a step MPI's world does not match).
#   mpirun -np N srun-like.sh COMMAND...
export SLURM_STEP_NUM_TASKS=${SRUN_LIKE_TASKS:-$OMPI_COMM_WORLD_SIZE}
export SLURM_NTASKS=$SLURM_STEP_NUM_TASKS
export SLURM_PROCID=$OMPI_COMM_WORLD_RANK
export SLURM_LOCALID=$OMPI_COMM_WORLD_LOCAL_RANK
export SLURM_NODEID=0
export SLURM_STEP_TASKS_PER_NODE=$OMPI_COMM_WORLD_LOCAL_SIZE
for var in $(compgen -e | grep '^OMPI_COMM_WORLD'); do
  unset "$var"
done
unset SRUN_LIKE_TASKS
exec "$@"
