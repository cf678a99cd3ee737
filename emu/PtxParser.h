//===- PtxParser.h - PTX text to a decoded module ---------------*- C++ -*-===//

#ifndef GPTC_EMU_PTXPARSER_H
#define GPTC_EMU_PTXPARSER_H

#include "emu/PtxModule.h"

#include <functional>
#include <string>
#include <vector>

namespace gptc::emu {

/// Allocates device memory for a .global/.const variable; 0 on failure.
using VarAllocator = std::function<uint64_t(uint64_t bytes)>;

/// Parses PTX text and decodes every instruction. On failure returns false
/// with one line in `error`: "PTX line N: ..." naming the opcode and the
/// function for an instruction the emulator does not implement.
bool parsePtx(const std::string &text, Module &mod, const VarAllocator &alloc,
              std::string &error);

/// The type a modifier names (".f32" -> Ty::F32), Ty::None if none.
Ty parseTypeWord(const std::string &word);

/// Decodes one instruction's opcode and modifiers (`ld`, {"global","f32"})
/// into `in` (operands already parsed) and chooses its handler. Returns
/// false with a reason when the combination is not implemented.
bool decodeInstr(Instr &in, const std::string &opcode,
                 const std::vector<std::string> &mods, std::string &error);

} // namespace gptc::emu

#endif
