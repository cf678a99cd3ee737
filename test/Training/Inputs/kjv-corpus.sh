#!/usr/bin/env bash
# Writes the King James Bible (Debian's bible-kjv) as one document per
# chapter: the chapter heading joined to its text, documents separated by a
# blank line. The same preparation as scripts/main.sh.
set -euo pipefail
bible gen1:1-rev22:21 |
  awk 'BEGIN{RS="";ORS="\n\n"} length($0)<40{h=$0;next} {print h "\n" $0}' > "$1"
