#!/bin/sh
# dump_test.sh OUT EDGELIST ROOT CMD...: run CMD --graph EDGELIST --root ROOT --dump-parents OUT,
# then check the dumped parents with the independent Python oracle (check_parents.py).
out=$1; el=$2; root=$3; shift 3
"$@" --graph "$el" --root "$root" --dump-parents "$out" || exit $?
exec python3 "$(dirname "$0")/check_parents.py" "$el" "$out" "$root"
