//===- CheckpointOwnership.h - gptc train's checkpoint directory -*- C++
//-*-===//
//
// Before the first step, rank 0 of `gptc train` settles where its
// checkpoints go and that they may go there (runtime/RunClaim.h): the run's
// identity (a new one, or the one of the checkpoint --resume continues),
// its claim on the directory (refused while another live run holds it),
// and what the directory holds (another run's checkpoints are refused
// without --force; a user's step_N in the way is refused). A run that
// saves only if a signal stops it (no --checkpoint-dir, no --save-every)
// is not refused: it trains, and a stop by signal then saves nothing and
// says why.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_COMMANDS_CHECKPOINTOWNERSHIP_H
#define GPTC_COMMANDS_CHECKPOINTOWNERSHIP_H

#include "commands/CommandOptions.h"
#include "runtime/RunClaim.h"
#include "runtime/Trainer.h"

#include <string>

namespace gptc::commands {

/// --resume, --init and the checkpoint directory, before the run: the
/// checkpoint found (config.resumePath), the weights file a regular file,
/// and on rank 0 (`leader`) the run's identity and its `claim` on
/// config.checkpointDir. False with one `error` line.
bool settleCheckpoints(const cli::ParsedOptions &options, bool leader,
                       runtime::TrainConfig &config, runtime::RunClaim &claim,
                       std::string &error);

} // namespace gptc::commands

#endif // GPTC_COMMANDS_CHECKPOINTOWNERSHIP_H
