//===- JobEnvironment.cpp - What a rank knows of its job before MPI -------===//

#include "runtime/comm/JobEnvironment.h"

#include <algorithm>
#include <cstdlib>
#include <initializer_list>

namespace gptc {
namespace runtime {
namespace comm {

namespace {

/// The first of `vars` that is set, as a non-negative integer.
std::optional<int64_t> firstCount(std::initializer_list<const char *> vars) {
  for (const char *var : vars)
    if (const char *v = std::getenv(var); v && *v) {
      char *end = nullptr;
      long long n = std::strtoll(v, &end, 10);
      if (*end == '\0' && n >= 0)
        return int64_t(n);
    }
  return std::nullopt;
}

} // namespace

bool launchedByMpi() {
  for (const char *var :
       {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE", "PMI_RANK"})
    if (const char *v = std::getenv(var); v && *v)
      return true;
  return false;
}

int64_t tasksOnNode(const std::string &tasksPerNode, int64_t node) {
  // "2(x3),1": counts, each for one node or, with (xK), for K nodes.
  size_t at = 0;
  int64_t first = 0;
  while (at < tasksPerNode.size()) {
    size_t end = tasksPerNode.find(',', at);
    std::string item = tasksPerNode.substr(
        at, end == std::string::npos ? std::string::npos : end - at);
    char *rest = nullptr;
    long long count = std::strtoll(item.c_str(), &rest, 10);
    long long repeat = 1;
    if (rest == item.c_str() || count < 0)
      return 0;
    if (*rest == '(') {
      if (rest[1] != 'x')
        return 0;
      char *close = nullptr;
      repeat = std::strtoll(rest + 2, &close, 10);
      if (repeat < 1 || *close != ')' || close[1] != '\0')
        return 0;
    } else if (*rest != '\0') {
      return 0;
    }
    if (node < first + repeat)
      return count;
    first += repeat;
    if (end == std::string::npos)
      break;
    at = end + 1;
  }
  return 0;
}

std::optional<SlurmStep> slurmStep() {
  // mpirun's ranks inherit the step variables of the shell or daemon that
  // started them (an interactive `srun --pty bash`, Open MPI's daemons
  // started by srun): they are mpirun's ranks, not the step's tasks.
  if (const char *v = std::getenv("OMPI_COMM_WORLD_SIZE"); v && *v)
    return std::nullopt;
  std::optional<int64_t> tasks = firstCount({"SLURM_STEP_NUM_TASKS"});
  std::optional<int64_t> rank = firstCount({"SLURM_PROCID"});
  if (!tasks || !rank || *tasks < 1)
    return std::nullopt;
  SlurmStep step;
  step.tasks = *tasks;
  step.rank = *rank;
  step.localRank = firstCount({"SLURM_LOCALID"}).value_or(0);
  step.localTasks = step.tasks;
  if (const char *perNode = std::getenv("SLURM_STEP_TASKS_PER_NODE"))
    if (int64_t n =
            tasksOnNode(perNode, firstCount({"SLURM_NODEID"}).value_or(0));
        n > 0)
      step.localTasks = n;
  return step;
}

std::string unjoinableJob() {
  std::optional<SlurmStep> step = slurmStep();
  if (!step || step->tasks < 2 || launchedByMpi())
    return "";
  return "srun started " + std::to_string(step->tasks) +
         " tasks (SLURM_STEP_NUM_TASKS) without PMI, so each would train "
         "alone: start them with srun --mpi=pmix (Open MPI forms the job "
         "through PMIx; srun --mpi=list shows what this Slurm offers)";
}

int64_t localRank() {
  if (auto v = firstCount({"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID"}))
    return *v;
  if (std::optional<SlurmStep> step = slurmStep())
    return step->localRank;
  return 0;
}

int64_t localRanks() {
  if (auto v = firstCount({"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"}))
    return std::max<int64_t>(*v, 1);
  if (std::optional<SlurmStep> step = slurmStep())
    return std::max<int64_t>(step->localTasks, 1);
  return 1;
}

bool startedAsRank() {
  if (launchedByMpi())
    return true;
  std::optional<SlurmStep> step = slurmStep();
  return step && step->tasks > 1;
}

bool laterRank() {
  if (auto v = firstCount({"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"}))
    return *v != 0;
  if (std::optional<SlurmStep> step = slurmStep())
    return step->rank != 0;
  return false;
}

} // namespace comm
} // namespace runtime
} // namespace gptc
