#!/usr/bin/env bash
# Renders the README's roofline figures from the shipped specs, with the kernelcost CLI.
# Run from anywhere:  docs/figures/make_figures.sh   (KERNELCOST=... to use another binary)
# Each figure is written as SVG (for the README) and PNG (to look at); the SVGs are
# reproducible, so a rerun changes a file only when the figure changed.
set -euo pipefail
cd "$(dirname "$0")/../.."
kernelcost=${KERNELCOST:-kernelcost}
out=docs/figures

plot() {  # plot NAME ARGS...: one figure, two formats
    local name=$1; shift
    "$kernelcost" plot "$@" -o "$out/$name.svg" -o "$out/$name.png"
}

# gemm_tiled, square, T = 128 tiles: I -> T/2 = 64 stays below the HBM ridge (never crosses)
plot gemm_tiled_sweep_N specs/gemm_tiled.kcost --machine h100 --precision bf16 \
    --set M=N,K=N,N=4096 --sweep N=64..65536
# gemm_tiled at N = 8192 as the tile grows: crosses the HBM ridge at T* = 613.2
plot gemm_tiled_sweep_T specs/gemm_tiled.kcost --machine h100 --precision bf16 \
    --set M=8192,N=8192,K=8192 --sweep T=16..8192
# LLM decode, 70e9 weights: I ~ b, compute-bound from b* = 295.5 (chapter, example 5)
plot llm_decode_sweep_b specs/llm_decode.kcost --machine h100 --precision bf16 \
    --set Theta=70e9,b=1 --sweep b=1..4096
# vector_add, n = 1e8 in fp32: I = 1/12, far below the ridge (chapter, example 1); a 400 us
# run moves 1.2 GB at 3 TB/s, 90 % of the HBM roof
plot vector_add specs/vector_add.kcost --machine h100 --precision fp32 --set n=1e8 \
    --measured 400us
# naive (fp32), tiled and ideal (perfect reuse, bf16) matrix products on one figure, each
# under the roofs of its own precision
plot gemm_compare specs/gemm_naive.kcost specs/gemm_tiled.kcost specs/gemm.kcost \
    --machine h100 --set M=N,K=N,N=4096 --sweep N=64..65536
