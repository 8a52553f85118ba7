#!/usr/bin/env bash
# Fails if a process that `make test` started is still running after it
# (docs/testing.md). make test exports MCPR_TEST_RUN=<unique mark> to every
# stage; each process it starts inherits the mark in its environment unless
# it is given a fresh one (scripts/test-dist.sh's `env -i` server checks its
# own process tree). A process found with the mark that is neither this
# script nor one of its ancestors (make and its shells) was left behind:
# listed with its command line, then the script fails.
#
#   MCPR_TEST_RUN=MARK scripts/leftovers.sh [GRACE_SECONDS]
set -uo pipefail
mark=${MCPR_TEST_RUN:?set MCPR_TEST_RUN to the mark make test exported}
grace=${1:-5}
export -n MCPR_TEST_RUN # what this script starts does not carry the mark

# Read with builtins only (no subshell, no pipe): a fork of this script
# would carry the mark too and be counted.
mine=" "
p=$$
while [[ -n $p && $p != 0 ]]; do
	mine+="$p "
	read -r -a stat <"/proc/$p/stat" 2>/dev/null || break
	p=${stat[3]}
done

left=()
marked() {
	local e p vars v
	left=()
	for e in /proc/[0-9]*/environ; do
		p=${e#/proc/}
		p=${p%/environ}
		[[ $mine == *" $p "* ]] && continue
		# Gone, a zombie (no environment left) or not ours to read: not left.
		{ mapfile -d '' vars <"$e"; } 2>/dev/null || continue
		for v in "${vars[@]}"; do
			if [[ $v == "MCPR_TEST_RUN=$mark" ]]; then
				left+=("$p")
				break
			fi
		done
	done
}

# Processes that are ending (a SIGTERM sent just before) get a moment.
deadline=$((SECONDS + grace))
marked
while ((${#left[@]} > 0 && SECONDS < deadline)); do
	sleep 0.5
	marked
done
unset MCPR_TEST_RUN
if ((${#left[@]} > 0)); then
	echo "leftovers: processes make test started are still running:" >&2
	list=${left[*]}
	ps -o pid,ppid,etime,args -p "${list// /,}" >&2
	exit 1
fi
echo "leftovers: no process make test started is left"
