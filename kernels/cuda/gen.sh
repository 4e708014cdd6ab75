#!/bin/sh
# gen.sh regenerates kernels.ptx from kernels.cu (go generate runs it):
#
#   sh gen.sh [output]     (default output: kernels.ptx, beside this script)
#
# It compiles kernels.cu as CUDA device code for NVPTX with clang-14, with
# exactly this command (ptx_test.go checks that the committed kernels.ptx
# is its output):
#
#   clang-14 -x cuda --cuda-device-only --cuda-gpu-arch=sm_70 -nocudainc
#     -nocudalib -Xclang -target-feature -Xclang +ptx64 -O3 -S
#
# No CUDA toolkit is needed: prelude.h defines what the CUDA headers would,
# and kernels.cu calls no libdevice functions. PTX 6.4 for sm_70 (Volta)
# loads on every later GPU, whose driver compiles it for itself.
set -eu
cd "$(dirname "$0")"
out="${1:-kernels.ptx}"
if ! command -v clang-14 >/dev/null 2>&1; then
	echo "gen.sh: clang-14 is not installed (apt-get install clang-14)" >&2
	exit 1
fi
clang-14 -x cuda --cuda-device-only --cuda-gpu-arch=sm_70 -nocudainc -nocudalib \
	-Xclang -target-feature -Xclang +ptx64 -O3 -S kernels.cu -o "$out"
