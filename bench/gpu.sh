#!/bin/sh
# bench/gpu.sh - the issue #3 benchmark run on a GPU machine, unattended: lists the Vulkan devices,
# runs `webnnc bench all --json` (plus the element-wise copy path, WEBNNC_NO_VEC_COPY=1, and the
# mat-vec benchmarks on the generic kernels, --no-fuse, for comparison), the PyTorch CUDA baseline
# (bench/torch_matvec.py: copy, fp16 and int4 mat-vec of the same sizes, CUDA events) and prints
# one summary table (bench/bench_summary.py) so the numbers can be compared from one run.
#   usage: bench/gpu.sh [WEBNNC_BINARY] [extra `webnnc bench` options, e.g. --device 0]
#   env:   OUT=DIR   where the JSON files go (default: bench-out)
#          GENERIC=0 skips the --no-fuse runs
set -u
here=$(dirname "$0")
bin=${1:-build/cli/webnnc}
[ $# -gt 0 ] && shift
out=${OUT:-bench-out}
mkdir -p "$out"
echo "== webnnc devices"
"$bin" devices || exit 2
echo "== webnnc bench all --json $*"
"$bin" bench all --json "$@" | tee "$out/webnnc-bench.json" || exit 1
echo "== webnnc bench copy, element-wise path (WEBNNC_NO_VEC_COPY=1)"
WEBNNC_NO_VEC_COPY=1 "$bin" bench copy --json "$@" | tee "$out/webnnc-bench-copy-scalar.json"
runs="webnnc=$out/webnnc-bench.json scalar=$out/webnnc-bench-copy-scalar.json"
if [ "${GENERIC:-1}" != 0 ]; then
    echo "== webnnc bench matvec / matvec-int4 --no-fuse (generic kernels)"
    "$bin" bench matvec --no-fuse --json "$@" | tee "$out/webnnc-bench-generic.json"
    "$bin" bench matvec-int4 --no-fuse --json "$@" | tee "$out/webnnc-bench-int4-generic.json"
    runs="$runs generic=$out/webnnc-bench-generic.json generic=$out/webnnc-bench-int4-generic.json"
fi
echo "== PyTorch baseline"
torch_arg=
if python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
    python3 "$here/torch_matvec.py" | tee "$out/torch-baseline.json" && torch_arg="--torch $out/torch-baseline.json"
else
    echo "python3 torch with CUDA not available: baseline skipped"
fi
echo "== summary"
# shellcheck disable=SC2086
python3 "$here/bench_summary.py" $torch_arg $runs
