//===- ArgumentHabits.h - Other trainers' flags, read the gptc way --*- C++
//-*-===//
//
// Before any command parses its arguments, gptc's main passes them here:
// the spellings users bring from nanoGPT, modded-nanogpt, llm.c or
// torchrun either mean the same in gptc (`--set KEY VALUE`) and are
// rewritten, or get one error line that names gptc's way (`--lr` ->
// optimizer.groups.NAME.lr). Keys of a spec that other trainers call
// differently get the same hints from the spec parser (SpecParser.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_COMMANDS_ARGUMENTHABITS_H
#define GPTC_COMMANDS_ARGUMENTHABITS_H

#include <ostream>
#include <string>
#include <vector>

namespace gptc::cli {

/// Rewrites `--set KEY VALUE` (KEY without '=') into `--set KEY=VALUE`;
/// checks --dtype's value. Returns false after printing one line
/// "gptc COMMAND: error: ..." for a flag of another trainer or a dtype
/// gptc does not train in.
bool normalizeArguments(const std::string &command,
                        std::vector<std::string> &args, std::ostream &err);

} // namespace gptc::cli

#endif // GPTC_COMMANDS_ARGUMENTHABITS_H
