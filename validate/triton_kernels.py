"""Triton kernels for validate/run_h200.py: the specs whose PyTorch form would be several
kernels (and so other traffic), written with the spec's grid, one block (program) per
grid point. Imported only once a GPU is known to be there."""

import triton
import triton.language as tl


@triton.jit
def _copy(x, y, n, BLOCK: tl.constexpr):
    # specs/copy.kcost: a block copies BLK = 1024 elements with 256 threads (8 warps)
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(y + offsets, tl.load(x + offsets, mask=mask), mask=mask)


def copy(x, y):
    n = x.numel()
    _copy[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024, num_warps=8)


@triton.jit
def _rmsnorm(x, w, y, n, eps, BLOCK: tl.constexpr):
    # specs/rmsnorm.kcost: one program per row; the sum of squares in fp32
    row = tl.program_id(0)
    offsets = tl.arange(0, BLOCK)
    mask = offsets < n
    v = tl.load(x + row * n + offsets, mask=mask, other=0.0).to(tl.float32)
    inv_rms = 1.0 / tl.sqrt(tl.sum(v * v, axis=0) / n + eps)
    weight = tl.load(w + offsets, mask=mask, other=0.0).to(tl.float32)
    tl.store(y + row * n + offsets, (v * inv_rms * weight).to(y.dtype.element_ty), mask=mask)


def rmsnorm(x, w, y, eps=1e-6):
    rows, n = x.shape
    block = triton.next_power_of_2(n)
    _rmsnorm[(rows,)](x, w, y, n, eps, BLOCK=block, num_warps=min(16, max(4, block // 512)))


@triton.jit
def _rotate(base, stride_head, c, s, HEADS: tl.constexpr, HALF: tl.constexpr):
    i = tl.arange(0, HALF)[None, :]
    pointers = base + tl.arange(0, HEADS)[:, None] * stride_head + i
    x1 = tl.load(pointers).to(tl.float32)
    x2 = tl.load(pointers + HALF).to(tl.float32)
    tl.store(pointers, (x1 * c - x2 * s).to(base.dtype.element_ty))
    tl.store(pointers + HALF, (x2 * c + x1 * s).to(base.dtype.element_ty))


@triton.jit
def _rope(q, k, cs, H: tl.constexpr, HK: tl.constexpr, HALF: tl.constexpr):
    # specs/rope.kcost: one program per token, q [T, H, 2, HALF] and k in place
    t = tl.program_id(0)
    i = tl.arange(0, HALF)
    c = tl.load(cs + t * 2 * HALF + i).to(tl.float32)[None, :]
    s = tl.load(cs + t * 2 * HALF + HALF + i).to(tl.float32)[None, :]
    _rotate(q + t * H * 2 * HALF, 2 * HALF, c, s, H, HALF)
    _rotate(k + t * HK * 2 * HALF, 2 * HALF, c, s, HK, HALF)


def rope(q, k, cs):
    tokens, heads, _, half = q.shape
    _rope[(tokens,)](q, k, cs, H=heads, HK=k.shape[1], HALF=half, num_warps=4)


@triton.jit
def _silu_mul(x, y, n, BLOCK: tl.constexpr):
    # specs/silu_mul.kcost: one program per token, x [T, 2, n] (gate, then up)
    t = tl.program_id(0)
    for start in range(0, n, BLOCK):
        offsets = start + tl.arange(0, BLOCK)
        mask = offsets < n
        gate = tl.load(x + t * 2 * n + offsets, mask=mask, other=0.0).to(tl.float32)
        up = tl.load(x + t * 2 * n + n + offsets, mask=mask, other=0.0).to(tl.float32)
        out = gate / (1.0 + tl.exp(-gate)) * up
        tl.store(y + t * n + offsets, out.to(y.dtype.element_ty), mask=mask)


def silu_mul(x, y):
    tokens, _, n = x.shape
    _silu_mul[(tokens,)](x, y, n, BLOCK=2048, num_warps=8)
