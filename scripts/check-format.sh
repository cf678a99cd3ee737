#!/usr/bin/env bash
# Fails when a C/C++ file of the project differs from what clang-format
# (LLVM 22, the project's .clang-format: LLVM style) makes of it, naming the
# files; scripts/test.sh runs it. To fix: clang-format-22 -i FILE...
set -euo pipefail
cd "$(dirname "$0")/.."
format=${CLANG_FORMAT:-clang-format-22}
command -v "$format" > /dev/null || {
  echo "check-format: $format not found (scripts/setup.sh installs it)" >&2
  exit 1
}
bad=()
while IFS= read -r f; do
  "$format" --dry-run --Werror "$f" > /dev/null 2>&1 || bad+=("$f")
done < <(git ls-files '*.cpp' '*.h' '*.c')
if [ ${#bad[@]} -gt 0 ]; then
  echo "check-format: ${#bad[@]} file(s) not formatted with $format:" >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
echo "check-format: $(git ls-files '*.cpp' '*.h' '*.c' | wc -l) files formatted"
