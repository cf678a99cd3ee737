#!/usr/bin/env python3
"""Plants an index shift in a CUDA step's IR (`gptc compile --target=cuda
--emit=llvm`): the first store of the first gpu.launch of
@gptc_grad_step (a memref.store, or a vector.store of several elements)
gets its first index plus one, so the kernel's last rows
write one row past the end of their buffer, into whatever the arena holds
next.

usage: shift-store.py IN OUT

Prints the store it shifted.
"""
import re
import sys


def main():
    lines = open(sys.argv[1]).read().split("\n")
    in_grad = in_launch = False
    for i, line in enumerate(lines):
        if re.match(r"\s*func\.func @gptc_grad_step\(", line):
            in_grad = True
        elif in_grad and "gpu.launch blocks" in line:
            in_launch = True
        elif in_launch:
            m = re.match(
                r"(\s*)(memref|vector)\.store (%\w+), (%\w+)\[(%\w+)(.*)$",
                line)
            if m:
                indent, dialect, value, buffer, first, rest = m.groups()
                lines[i:i + 1] = [
                    f"{indent}%gptc_shift_one = arith.constant 1 : index",
                    f"{indent}%gptc_shifted = arith.addi {first}, "
                    f"%gptc_shift_one : index",
                    f"{indent}{dialect}.store {value}, {buffer}[%gptc_shifted"
                    f"{rest}"]
                open(sys.argv[2], "w").write("\n".join(lines))
                print(f"shifted: {line.strip()}")
                return
    sys.exit("no store in the first gpu.launch of @gptc_grad_step")


if __name__ == "__main__":
    main()
