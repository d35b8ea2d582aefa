"""What each case of run_h200.py runs, as PyTorch or Triton code: its inputs and one call
that does what the spec counts (torch and the Triton kernels passed in: importing this needs
neither)."""

from __future__ import annotations

DEVICE = "cuda"  # where build() puts the inputs (a test may set "cpu", with TRITON_INTERPRET=1)
RAGGED = 1  # gemm_ragged runs each of M, N, K this much under the spec's (padded) sizes


def build(kernel: str, sizes: dict, torch, triton_kernels):
    """The inputs and a call that does what the spec counts; `check`, called after one
    call, compares a Triton kernel's output with PyTorch's (None where PyTorch runs)."""
    cuda, bf16, f32 = DEVICE, torch.bfloat16, torch.float32
    F = torch.nn.functional
    s = sizes
    if kernel.endswith("_graph"):  # the same call, captured once and replayed
        fn, check = build(kernel[: -len("_graph")], sizes, torch, triton_kernels)
        return _graphed(fn, torch), check
    if kernel in ("gemm_skinny", "gemm_small", "gemm_tallk", "gemm_ragged", "gemm_zeros"):
        M, N, K = (s["b"], s["N"], s["K"]) if "b" in s else (s["M"], s["N"], s["K"])
        if kernel == "gemm_ragged":
            M, N, K = M - RAGGED, N - RAGGED, K - RAGGED
        make = torch.zeros if kernel == "gemm_zeros" else torch.randn
        a = make(M, K, device=cuda, dtype=bf16)
        b = make(K, N, device=cuda, dtype=bf16)
        return (lambda: torch.matmul(a, b)), None
    if kernel in ("flash_attention", "flash_attention_causal"):
        from torch.nn.attention import SDPBackend, sdpa_kernel

        q, k, v = (torch.randn(1, s["H"], s["S"], s["d"], device=cuda, dtype=bf16)
                   for _ in range(3))
        causal = kernel == "flash_attention_causal"

        def attention():
            with sdpa_kernel(SDPBackend.FLASH_ATTENTION):  # no other backend: else it raises
                return F.scaled_dot_product_attention(q, k, v, is_causal=causal)

        return attention, None
    if kernel in ("copy", "copy_triton"):
        x, y = torch.randn(s["n"], device=cuda), torch.empty(s["n"], device=cuda)
        if kernel == "copy":
            return (lambda: y.copy_(x)), None
        return (lambda: triton_kernels.copy(x, y)), lambda: torch.equal(x, y)
    if kernel == "gemm":
        a = torch.randn(s["M"], s["K"], device=cuda, dtype=bf16)
        b = torch.randn(s["K"], s["N"], device=cuda, dtype=bf16)
        return (lambda: torch.matmul(a, b)), None
    if kernel == "gemv_decode":
        w = torch.randn(s["N"], s["K"], device=cuda, dtype=bf16)
        x = torch.randn(s["b"], s["K"], device=cuda, dtype=bf16)
        return (lambda: F.linear(x, w)), None
    if kernel == "decode_attention":
        g, d = 8, 128  # the spec's defaults; the g query heads of a KV head as g rows
        H = s["h"] // g
        q = torch.randn(s["b"], H, g, d, device=cuda, dtype=bf16)
        k = torch.randn(s["b"], H, s["L"], d, device=cuda, dtype=bf16)
        v = torch.randn_like(k)
        return (lambda: F.scaled_dot_product_attention(q, k, v)), None
    if kernel == "rmsnorm_triton":
        x = torch.randn(s["R"], s["n"], device=cuda, dtype=bf16)
        w = torch.randn(s["n"], device=cuda, dtype=bf16)
        y = torch.empty_like(x)

        def reference():
            xf = x.float()
            return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6) * w.float())

        return (lambda: triton_kernels.rmsnorm(x, w, y)), lambda: torch.allclose(
            y.float(), reference(), atol=0.05, rtol=0.02)
    if kernel == "rope_triton":
        T, h, hk, d = s["T"], s["h"], s["hk"], 128
        q = torch.randn(T, h, 2, d // 2, device=cuda, dtype=bf16)
        k = torch.randn(T, hk, 2, d // 2, device=cuda, dtype=bf16)
        angle = torch.rand(T, 1, d // 2, device=cuda) * 6.28  # a rotation keeps the norm
        cs = torch.cat([angle.cos(), angle.sin()], dim=1).to(bf16)  # repeats stay finite
        q0 = q.clone()

        def check():
            q.copy_(q0)
            triton_kernels.rope(q, k, cs)
            c, sn = cs[:, None, 0].float(), cs[:, None, 1].float()
            x1, x2 = q0[:, :, 0].float(), q0[:, :, 1].float()
            return torch.allclose(q[:, :, 0].float(), x1 * c - x2 * sn, atol=0.05, rtol=0.02)

        return (lambda: triton_kernels.rope(q, k, cs)), check
    if kernel == "silu_mul_triton":
        x = torch.randn(s["T"], 2, s["n"], device=cuda, dtype=bf16)
        y = torch.empty(s["T"], s["n"], device=cuda, dtype=bf16)
        return (lambda: triton_kernels.silu_mul(x, y)), lambda: torch.allclose(
            y.float(), (F.silu(x[:, 0].float()) * x[:, 1].float()), atol=0.05, rtol=0.02)
    if kernel == "moe_gemm":
        w = torch.randn(8, s["N"], s["K"], device=cuda, dtype=bf16)
        x = torch.randn(s["Ea"], s["Mt"], s["K"], device=cuda, dtype=bf16)
        wt = w[: s["Ea"]].transpose(1, 2)  # a view: the touched experts' weights, unmoved
        return (lambda: torch.bmm(x, wt)), None
    if kernel == "reduce_sum":
        x = torch.randn(s["n"], device=cuda, dtype=f32)
        return (lambda: x.sum()), None
    if kernel == "softmax_rows":
        x = torch.randn(s["R"], s["n"], device=cuda, dtype=bf16)
        return (lambda: torch.softmax(x, dim=-1)), None
    if kernel == "layernorm_rows":
        x = torch.randn(s["R"], s["n"], device=cuda, dtype=bf16)
        gamma, beta = torch.randn(s["n"], device=cuda, dtype=bf16), torch.randn(
            s["n"], device=cuda, dtype=bf16)
        return (lambda: F.layer_norm(x, (s["n"],), gamma, beta)), None
    raise ValueError(kernel)


def _graphed(fn, torch):
    """fn captured in a CUDA graph (warmed up on a side stream first): its replay."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        fn()
    torch.cuda.synchronize()
    return graph.replay
