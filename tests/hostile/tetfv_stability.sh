#!/bin/sh
# tetfv_stability.sh MESH TETFV [regen GEO]: on a mesh where the full flux correction grows,
# the default scheme must limit it (flux_limiter below 1) and pass the energy check, and the
# same run with the limiter off (KIT_FAULT=no-limiter, tests only) must fail that check with
# exit 1. With "regen GEO" the mesh is first regenerated from GEO with gmsh (exit 77, skipped,
# without gmsh), so the committed .msh is shown to be what the .geo makes.
mesh=$1; app=$2
fail() { echo "tetfv_stability.sh: $*" >&2; exit 1; }
if [ "$3" = regen ]; then
  command -v gmsh > /dev/null 2>&1 || { echo "gmsh not installed: skipped"; exit 77; }
  dir=$(mktemp -d) || exit 1
  trap 'rm -rf "$dir"' EXIT
  gmsh -3 "$4" -format msh22 -o "$dir/torus.msh" > "$dir/gmsh.log" 2>&1 || { cat "$dir/gmsh.log"; fail "gmsh failed"; }
  mesh=$dir/torus.msh
fi
args="--variant cpu --mesh $mesh --iters 20 --reps 1 --warmup 0 --init random"
out=$("$app" $args 2>&1); rc=$?
printf '%s\n' "$out"
[ "$rc" -eq 0 ] || fail "limited run: exit $rc, expected 0"
printf '%s\n' "$out" | grep -Eq '^flux_limiter: +0\.[0-9]' || fail "limited run: flux_limiter is not below 1"
printf '%s\n' "$out" | grep -Eq '^check energy: +PASSED' || fail "limited run: energy check did not pass"
out=$(KIT_FAULT=no-limiter "$app" $args 2>&1); rc=$?
printf '%s\n' "$out"
[ "$rc" -eq 1 ] || fail "unlimited run: exit $rc, expected 1"
printf '%s\n' "$out" | grep -Eq '^flux_limiter: +1 *$' || fail "unlimited run: flux_limiter is not 1"
printf '%s\n' "$out" | grep -Eq '^check energy: +FAILED' || fail "unlimited run: energy check did not fail"
exit 0
