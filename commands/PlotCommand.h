//===- PlotCommand.h - `gptc plot` ------------------------------*- C++ -*-===//
//
//   gptc plot LOG.jsonl... [-o loss.png] [--smooth K] [--label NAME]...
//
// Draws the training and validation loss of `gptc train --log` files
// against steps and against tokens (two panels, one PNG) with gnuplot
// (Debian's gnuplot-nox), several logs over each other, the training loss
// optionally as its moving average over K steps (PlotLog.h), and prints
// one line naming the file.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_COMMANDS_PLOTCOMMAND_H
#define GPTC_COMMANDS_PLOTCOMMAND_H

#include <ostream>
#include <string>
#include <vector>

namespace gptc::commands {

/// Its lines in `gptc --help`'s Commands section.
extern const char kPlotHelp[];

/// `args` are the arguments after `plot`. Returns 0, 1 on an error (one
/// line on `err`) or 2 on a usage error.
int runPlotCommand(const std::vector<std::string> &args, std::ostream &out,
                   std::ostream &err);

const char *plotCommandUsage();

} // namespace gptc::commands

#endif // GPTC_COMMANDS_PLOTCOMMAND_H
