#!/bin/sh
# bench/gpu.sh - the issue #3 benchmark run on a GPU machine, unattended: lists the Vulkan devices,
# runs `webnnc bench all --json` (plus the mat-vec benchmarks on the generic kernels, --no-fuse,
# for comparison) and the PyTorch CUDA baseline (bench/torch_matvec.py: copy + fp16 mat-vec of the
# same sizes, CUDA events) so the numbers can be compared from one run.
#   usage: bench/gpu.sh [WEBNNC_BINARY] [extra `webnnc bench` options, e.g. --device 0]
#   env:   OUT=DIR   where the JSON files go (default: bench-out)
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
echo "== webnnc bench matvec / matvec-int4 --no-fuse (generic kernels)"
"$bin" bench matvec --no-fuse --json "$@" | tee "$out/webnnc-bench-generic.json"
"$bin" bench matvec-int4 --no-fuse --json "$@" | tee "$out/webnnc-bench-int4-generic.json"
echo "== PyTorch baseline"
if python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
    python3 "$here/torch_matvec.py" | tee "$out/torch-baseline.json"
else
    echo "python3 torch with CUDA not available: baseline skipped"
fi
