//===- SampleCommand.h - `gptc sample` --------------------------*- C++ -*-===//
//
//   gptc sample CHECKPOINT [--prompt TEXT] [--tokens N] [--temperature T]
//                          [--top-k K] [--seed S] [--tokenizer FILE]
//                          [--bundle DIR] [--ids]
//
// Generates text from a trained checkpoint with the bundle's compiled
// gptc_logits_step (forward only, the logits at each row's last prompt
// position): the prompt (after the document separator) is the context,
// its last seq_len tokens a window, and each next token is drawn from
// softmax(logits / T) over the top K (T = 0: the most likely one).
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_COMMANDS_SAMPLECOMMAND_H
#define GPTC_COMMANDS_SAMPLECOMMAND_H

#include <ostream>
#include <string>
#include <vector>

namespace gptc::commands {

/// Its lines in `gptc --help`'s Commands section.
extern const char kSampleHelp[];

/// `args` are the arguments after `sample`. Returns 0, 1 on an error (one
/// line on `err`) or 2 on a usage error.
int runSampleCommand(const std::vector<std::string> &args, std::ostream &out,
                     std::ostream &err);

const char *sampleCommandUsage();

} // namespace gptc::commands

#endif // GPTC_COMMANDS_SAMPLECOMMAND_H
