#!/usr/bin/env bash
# Fails when a file tracked by git is larger than the limit (1 MiB) and not on
# the allow list below: build outputs and binaries belong in .gitignore, not in
# the repository. `make test` runs it (target check-files).
#
#   scripts/check-large-files.sh [REPO_DIR]
#
# MCPR_MAX_FILE_BYTES overrides the limit. Sizes are those of the blobs in the
# index (what the next commit holds), so a fresh clone checks what was pushed.
set -euo pipefail

# Tracked files allowed past the limit, one path per entry. Keep it short:
# each one makes every clone bigger for good.
ALLOW=(
)

max=${MCPR_MAX_FILE_BYTES:-1048576}
if ! [[ $max =~ ^[0-9]+$ ]]; then
  echo "check-large-files: MCPR_MAX_FILE_BYTES=$max is not a number of bytes" >&2
  exit 2
fi
cd "${1:-$(dirname "$0")/..}"

allowed() {
  local a
  for a in "${ALLOW[@]+"${ALLOW[@]}"}"; do
    [ "$a" = "$1" ] && return 0
  done
  return 1
}

bad=0
# "<mode> <object> <stage>\t<path>" per entry; submodules (160000) have no blob here.
while IFS= read -r line; do
  size=${line%% *} path=${line#* }
  if [ "$size" -gt "$max" ] && ! allowed "$path"; then
    echo "check-large-files: $path is $size bytes, over the $max-byte limit; remove it from git (git rm --cached) and ignore it, or add it to ALLOW in $0" >&2
    bad=1
  fi
done < <(git ls-files -s -z | tr '\0' '\n' | awk '{ i = index($0, "\t"); split(substr($0, 1, i - 1), m, " "); if (m[1] != "160000") print m[2] " " substr($0, i + 1) }' |
  git cat-file --batch-check='%(objectsize) %(rest)')
exit $bad
