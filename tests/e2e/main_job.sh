#!/usr/bin/env bash
# main_job.sh - the main job on the embedded default model, exactly as the README's first set-up
# command runs it (and as the e2e test `main_job` does, so the two cannot drift):
#   1. webnnc convert testdata/tiny_decoder.onnx -o OUTDIR
#   2. webnnc run OUTDIR on the Vulkan runtime with testdata/tiny_decoder/test_data_set_0 as inputs
#      and --expect (reference logits made by ONNX Runtime, see testdata/README.md): prints the
#      parity table (max abs/rel error, cosine, argmax agreement, PASS/FAIL) and exits 1 on FAIL
#   3. webnnc inspect OUTDIR
#
#   tests/e2e/main_job.sh [WEBNNC [OUTDIR]]     (defaults: build/cli/webnnc, /tmp/webnnc-demo)
#
# Without a working Vulkan device (no GPU) it uses Mesa's lavapipe (VK_ICD_FILENAMES).
set -euo pipefail
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
webnnc=${1:-$src/build/cli/webnnc}
out=${2:-/tmp/webnnc-demo}
lavapipe=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json
data=$src/testdata/tiny_decoder/test_data_set_0

if [ -z "${VK_ICD_FILENAMES:-}" ] && [ -f "$lavapipe" ] && ! "$webnnc" devices >/dev/null 2>&1; then
    export VK_ICD_FILENAMES=$lavapipe
fi
step() { echo "\$ webnnc ${*:2}"; "$@"; }
step "$webnnc" convert "$src/testdata/tiny_decoder.onnx" -o "$out"
step "$webnnc" run "$out" --inputs "$data" --expect "$data"
step "$webnnc" inspect "$out"
