"""sympy's monomial arithmetic (MonomialOps) for 1 to 12 generators, compiled with
the package, each function under the text sympy's template writes. Written by
monomial_ops.monomial_bodies_source(); tests/test_monomial_ops.py holds this file
to it."""

# mypy: ignore-errors
# ruff: noqa

BODIES = {}

def monomial_mul(A, B):
    (a0,) = A
    (b0,) = B
    return (a0 + b0,)

BODIES['def monomial_mul(A, B):\n    (a0,) = A\n    (b0,) = B\n    return (a0 + b0,)\n'] = monomial_mul

def monomial_pow(A, k):
    (a0,) = A
    return (a0*k,)

BODIES['def monomial_pow(A, k):\n    (a0,) = A\n    return (a0*k,)\n'] = monomial_pow

def monomial_mulpow(A, B, k):
    (a0,) = A
    (b0,) = B
    return (a0 + b0*k,)

BODIES['def monomial_mulpow(A, B, k):\n    (a0,) = A\n    (b0,) = B\n    return (a0 + b0*k,)\n'] = monomial_mulpow

def monomial_ldiv(A, B):
    (a0,) = A
    (b0,) = B
    return (a0 - b0,)

BODIES['def monomial_ldiv(A, B):\n    (a0,) = A\n    (b0,) = B\n    return (a0 - b0,)\n'] = monomial_ldiv

def monomial_div(A, B):
    (a0,) = A
    (b0,) = B
    r0 = a0 - b0
    if r0 < 0: return None
    return (r0,)

BODIES['def monomial_div(A, B):\n    (a0,) = A\n    (b0,) = B\n    r0 = a0 - b0\n    if r0 < 0: return None\n    return (r0,)\n'] = monomial_div

def monomial_lcm(A, B):
    (a0,) = A
    (b0,) = B
    return (a0 if a0 >= b0 else b0,)

BODIES['def monomial_lcm(A, B):\n    (a0,) = A\n    (b0,) = B\n    return (a0 if a0 >= b0 else b0,)\n'] = monomial_lcm

def monomial_gcd(A, B):
    (a0,) = A
    (b0,) = B
    return (a0 if a0 <= b0 else b0,)

BODIES['def monomial_gcd(A, B):\n    (a0,) = A\n    (b0,) = B\n    return (a0 if a0 <= b0 else b0,)\n'] = monomial_gcd

def monomial_mul(A, B):
    (a0, a1,) = A
    (b0, b1,) = B
    return (a0 + b0, a1 + b1,)

BODIES['def monomial_mul(A, B):\n    (a0, a1,) = A\n    (b0, b1,) = B\n    return (a0 + b0, a1 + b1,)\n'] = monomial_mul

def monomial_pow(A, k):
    (a0, a1,) = A
    return (a0*k, a1*k,)

BODIES['def monomial_pow(A, k):\n    (a0, a1,) = A\n    return (a0*k, a1*k,)\n'] = monomial_pow

def monomial_mulpow(A, B, k):
    (a0, a1,) = A
    (b0, b1,) = B
    return (a0 + b0*k, a1 + b1*k,)

BODIES['def monomial_mulpow(A, B, k):\n    (a0, a1,) = A\n    (b0, b1,) = B\n    return (a0 + b0*k, a1 + b1*k,)\n'] = monomial_mulpow

def monomial_ldiv(A, B):
    (a0, a1,) = A
    (b0, b1,) = B
    return (a0 - b0, a1 - b1,)

BODIES['def monomial_ldiv(A, B):\n    (a0, a1,) = A\n    (b0, b1,) = B\n    return (a0 - b0, a1 - b1,)\n'] = monomial_ldiv

def monomial_div(A, B):
    (a0, a1,) = A
    (b0, b1,) = B
    r0 = a0 - b0
    if r0 < 0: return None
    r1 = a1 - b1
    if r1 < 0: return None
    return (r0, r1,)

BODIES['def monomial_div(A, B):\n    (a0, a1,) = A\n    (b0, b1,) = B\n    r0 = a0 - b0\n    if r0 < 0: return None\n    r1 = a1 - b1\n    if r1 < 0: return None\n    return (r0, r1,)\n'] = monomial_div

def monomial_lcm(A, B):
    (a0, a1,) = A
    (b0, b1,) = B
    return (a0 if a0 >= b0 else b0, a1 if a1 >= b1 else b1,)

BODIES['def monomial_lcm(A, B):\n    (a0, a1,) = A\n    (b0, b1,) = B\n    return (a0 if a0 >= b0 else b0, a1 if a1 >= b1 else b1,)\n'] = monomial_lcm

def monomial_gcd(A, B):
    (a0, a1,) = A
    (b0, b1,) = B
    return (a0 if a0 <= b0 else b0, a1 if a1 <= b1 else b1,)

BODIES['def monomial_gcd(A, B):\n    (a0, a1,) = A\n    (b0, b1,) = B\n    return (a0 if a0 <= b0 else b0, a1 if a1 <= b1 else b1,)\n'] = monomial_gcd

def monomial_mul(A, B):
    (a0, a1, a2,) = A
    (b0, b1, b2,) = B
    return (a0 + b0, a1 + b1, a2 + b2,)

BODIES['def monomial_mul(A, B):\n    (a0, a1, a2,) = A\n    (b0, b1, b2,) = B\n    return (a0 + b0, a1 + b1, a2 + b2,)\n'] = monomial_mul

def monomial_pow(A, k):
    (a0, a1, a2,) = A
    return (a0*k, a1*k, a2*k,)

BODIES['def monomial_pow(A, k):\n    (a0, a1, a2,) = A\n    return (a0*k, a1*k, a2*k,)\n'] = monomial_pow

def monomial_mulpow(A, B, k):
    (a0, a1, a2,) = A
    (b0, b1, b2,) = B
    return (a0 + b0*k, a1 + b1*k, a2 + b2*k,)

BODIES['def monomial_mulpow(A, B, k):\n    (a0, a1, a2,) = A\n    (b0, b1, b2,) = B\n    return (a0 + b0*k, a1 + b1*k, a2 + b2*k,)\n'] = monomial_mulpow

def monomial_ldiv(A, B):
    (a0, a1, a2,) = A
    (b0, b1, b2,) = B
    return (a0 - b0, a1 - b1, a2 - b2,)

BODIES['def monomial_ldiv(A, B):\n    (a0, a1, a2,) = A\n    (b0, b1, b2,) = B\n    return (a0 - b0, a1 - b1, a2 - b2,)\n'] = monomial_ldiv

def monomial_div(A, B):
    (a0, a1, a2,) = A
    (b0, b1, b2,) = B
    r0 = a0 - b0
    if r0 < 0: return None
    r1 = a1 - b1
    if r1 < 0: return None
    r2 = a2 - b2
    if r2 < 0: return None
    return (r0, r1, r2,)

BODIES['def monomial_div(A, B):\n    (a0, a1, a2,) = A\n    (b0, b1, b2,) = B\n    r0 = a0 - b0\n    if r0 < 0: return None\n    r1 = a1 - b1\n    if r1 < 0: return None\n    r2 = a2 - b2\n    if r2 < 0: return None\n    return (r0, r1, r2,)\n'] = monomial_div

def monomial_lcm(A, B):
    (a0, a1, a2,) = A
    (b0, b1, b2,) = B
    return (a0 if a0 >= b0 else b0, a1 if a1 >= b1 else b1, a2 if a2 >= b2 else b2,)

BODIES['def monomial_lcm(A, B):\n    (a0, a1, a2,) = A\n    (b0, b1, b2,) = B\n    return (a0 if a0 >= b0 else b0, a1 if a1 >= b1 else b1, a2 if a2 >= b2 else b2,)\n'] = monomial_lcm

def monomial_gcd(A, B):
    (a0, a1, a2,) = A
    (b0, b1, b2,) = B
    return (a0 if a0 <= b0 else b0, a1 if a1 <= b1 else b1, a2 if a2 <= b2 else b2,)

BODIES['def monomial_gcd(A, B):\n    (a0, a1, a2,) = A\n    (b0, b1, b2,) = B\n    return (a0 if a0 <= b0 else b0, a1 if a1 <= b1 else b1, a2 if a2 <= b2 else b2,)\n'] = monomial_gcd

def monomial_mul(A, B):
    (a0, a1, a2, a3,) = A
    (b0, b1, b2, b3,) = B
    return (a0 + b0, a1 + b1, a2 + b2, a3 + b3,)

BODIES['def monomial_mul(A, B):\n    (a0, a1, a2, a3,) = A\n    (b0, b1, b2, b3,) = B\n    return (a0 + b0, a1 + b1, a2 + b2, a3 + b3,)\n'] = monomial_mul

def monomial_pow(A, k):
    (a0, a1, a2, a3,) = A
    return (a0*k, a1*k, a2*k, a3*k,)

BODIES['def monomial_pow(A, k):\n    (a0, a1, a2, a3,) = A\n    return (a0*k, a1*k, a2*k, a3*k,)\n'] = monomial_pow

def monomial_mulpow(A, B, k):
    (a0, a1, a2, a3,) = A
    (b0, b1, b2, b3,) = B
    return (a0 + b0*k, a1 + b1*k, a2 + b2*k, a3 + b3*k,)

BODIES['def monomial_mulpow(A, B, k):\n    (a0, a1, a2, a3,) = A\n    (b0, b1, b2, b3,) = B\n    return (a0 + b0*k, a1 + b1*k, a2 + b2*k, a3 + b3*k,)\n'] = monomial_mulpow

def monomial_ldiv(A, B):
    (a0, a1, a2, a3,) = A
    (b0, b1, b2, b3,) = B
    return (a0 - b0, a1 - b1, a2 - b2, a3 - b3,)

BODIES['def monomial_ldiv(A, B):\n    (a0, a1, a2, a3,) = A\n    (b0, b1, b2, b3,) = B\n    return (a0 - b0, a1 - b1, a2 - b2, a3 - b3,)\n'] = monomial_ldiv

def monomial_div(A, B):
    (a0, a1, a2, a3,) = A
    (b0, b1, b2, b3,) = B
    r0 = a0 - b0
    if r0 < 0: return None
    r1 = a1 - b1
    if r1 < 0: return None
    r2 = a2 - b2
    if r2 < 0: return None
    r3 = a3 - b3
    if r3 < 0: return None
    return (r0, r1, r2, r3,)

BODIES['def monomial_div(A, B):\n    (a0, a1, a2, a3,) = A\n    (b0, b1, b2, b3,) = B\n    r0 = a0 - b0\n    if r0 < 0: return None\n    r1 = a1 - b1\n    if r1 < 0: return None\n    r2 = a2 - b2\n    if r2 < 0: return None\n    r3 = a3 - b3\n    if r3 < 0: return None\n    return (r0, r1, r2, r3,)\n'] = monomial_div

def monomial_lcm(A, B):
    (a0, a1, a2, a3,) = A
    (b0, b1, b2, b3,) = B
    return (a0 if a0 >= b0 else b0, a1 if a1 >= b1 else b1, a2 if a2 >= b2 else b2, a3 if a3 >= b3 else b3,)

BODIES['def monomial_lcm(A, B):\n    (a0, a1, a2, a3,) = A\n    (b0, b1, b2, b3,) = B\n    return (a0 if a0 >= b0 else b0, a1 if a1 >= b1 else b1, a2 if a2 >= b2 else b2, a3 if a3 >= b3 else b3,)\n'] = monomial_lcm

def monomial_gcd(A, B):
    (a0, a1, a2, a3,) = A
    (b0, b1, b2, b3,) = B
    return (a0 if a0 <= b0 else b0, a1 if a1 <= b1 else b1, a2 if a2 <= b2 else b2, a3 if a3 <= b3 else b3,)

BODIES['def monomial_gcd(A, B):\n    (a0, a1, a2, a3,) = A\n    (b0, b1, b2, b3,) = B\n    return (a0 if a0 <= b0 else b0, a1 if a1 <= b1 else b1, a2 if a2 <= b2 else b2, a3 if a3 <= b3 else b3,)\n'] = monomial_gcd

def monomial_mul(A, B):
    (a0, a1, a2, a3, a4,) = A
    (b0, b1, b2, b3, b4,) = B
    return (a0 + b0, a1 + b1, a2 + b2, a3 + b3, a4 + b4,)

BODIES['def monomial_mul(A, B):\n    (a0, a1, a2, a3, a4,) = A\n    (b0, b1, b2, b3, b4,) = B\n    return (a0 + b0, a1 + b1, a2 + b2, a3 + b3, a4 + b4,)\n'] = monomial_mul

def monomial_pow(A, k):
    (a0, a1, a2, a3, a4,) = A
    return (a0*k, a1*k, a2*k, a3*k, a4*k,)

BODIES['def monomial_pow(A, k):\n    (a0, a1, a2, a3, a4,) = A\n    return (a0*k, a1*k, a2*k, a3*k, a4*k,)\n'] = monomial_pow

def monomial_mulpow(A, B, k):
    (a0, a1, a2, a3, a4,) = A
    (b0, b1, b2, b3, b4,) = B
    return (a0 + b0*k, a1 + b1*k, a2 + b2*k, a3 + b3*k, a4 + b4*k,)

BODIES['def monomial_mulpow(A, B, k):\n    (a0, a1, a2, a3, a4,) = A\n    (b0, b1, b2, b3, b4,) = B\n    return (a0 + b0*k, a1 + b1*k, a2 + b2*k, a3 + b3*k, a4 + b4*k,)\n'] = monomial_mulpow

def monomial_ldiv(A, B):
    (a0, a1, a2, a3, a4,) = A
    (b0, b1, b2, b3, b4,) = B
    return (a0 - b0, a1 - b1, a2 - b2, a3 - b3, a4 - b4,)

BODIES['def monomial_ldiv(A, B):\n    (a0, a1, a2, a3, a4,) = A\n    (b0, b1, b2, b3, b4,) = B\n    return (a0 - b0, a1 - b1, a2 - b2, a3 - b3, a4 - b4,)\n'] = monomial_ldiv

def monomial_div(A, B):
    (a0, a1, a2, a3, a4,) = A
    (b0, b1, b2, b3, b4,) = B
    r0 = a0 - b0
    if r0 < 0: return None
    r1 = a1 - b1
    if r1 < 0: return None
    r2 = a2 - b2
    if r2 < 0: return None
    r3 = a3 - b3
    if r3 < 0: return None
    r4 = a4 - b4
    if r4 < 0: return None
    return (r0, r1, r2, r3, r4,)

BODIES['def monomial_div(A, B):\n    (a0, a1, a2, a3, a4,) = A\n    (b0, b1, b2, b3, b4,) = B\n    r0 = a0 - b0\n    if r0 < 0: return None\n    r1 = a1 - b1\n    if r1 < 0: return None\n    r2 = a2 - b2\n    if r2 < 0: return None\n    r3 = a3 - b3\n    if r3 < 0: return None\n    r4 = a4 - b4\n    if r4 < 0: return None\n    return (r0, r1, r2, r3, r4,)\n'] = monomial_div

def monomial_lcm(A, B):
    (a0, a1, a2, a3, a4,) = A
    (b0, b1, b2, b3, b4,) = B
    return (a0 if a0 >= b0 else b0, a1 if a1 >= b1 else b1, a2 if a2 >= b2 else b2, a3 if a3 >= b3 else b3, a4 if a4 >= b4 else b4,)

BODIES['def monomial_lcm(A, B):\n    (a0, a1, a2, a3, a4,) = A\n    (b0, b1, b2, b3, b4,) = B\n    return (a0 if a0 >= b0 else b0, a1 if a1 >= b1 else b1, a2 if a2 >= b2 else b2, a3 if a3 >= b3 else b3, a4 if a4 >= b4 else b4,)\n'] = monomial_lcm

def monomial_gcd(A, B):
    (a0, a1, a2, a3, a4,) = A
    (b0, b1, b2, b3, b4,) = B
    return (a0 if a0 <= b0 else b0, a1 if a1 <= b1 else b1, a2 if a2 <= b2 else b2, a3 if a3 <= b3 else b3, a4 if a4 <= b4 else b4,)

BODIES['def monomial_gcd(A, B):\n    (a0, a1, a2, a3, a4,) = A\n    (b0, b1, b2, b3, b4,) = B\n    return (a0 if a0 <= b0 else b0, a1 if a1 <= b1 else b1, a2 if a2 <= b2 else b2, a3 if a3 <= b3 else b3, a4 if a4 <= b4 else b4,)\n'] = monomial_gcd

def monomial_mul(A, B):
    (a0, a1, a2, a3, a4, a5,) = A
    (b0, b1, b2, b3, b4, b5,) = B
    return (a0 + b0, a1 + b1, a2 + b2, a3 + b3, a4 + b4, a5 + b5,)

BODIES['def monomial_mul(A, B):\n    (a0, a1, a2, a3, a4, a5,) = A\n    (b0, b1, b2, b3, b4, b5,) = B\n    return (a0 + b0, a1 + b1, a2 + b2, a3 + b3, a4 + b4, a5 + b5,)\n'] = monomial_mul

def monomial_pow(A, k):
    (a0, a1, a2, a3, a4, a5,) = A
    return (a0*k, a1*k, a2*k, a3*k, a4*k, a5*k,)

BODIES['def monomial_pow(A, k):\n    (a0, a1, a2, a3, a4, a5,) = A\n    return (a0*k, a1*k, a2*k, a3*k, a4*k, a5*k,)\n'] = monomial_pow

def monomial_mulpow(A, B, k):
    (a0, a1, a2, a3, a4, a5,) = A
    (b0, b1, b2, b3, b4, b5,) = B
    return (a0 + b0*k, a1 + b1*k, a2 + b2*k, a3 + b3*k, a4 + b4*k, a5 + b5*k,)

BODIES['def monomial_mulpow(A, B, k):\n    (a0, a1, a2, a3, a4, a5,) = A\n    (b0, b1, b2, b3, b4, b5,) = B\n    return (a0 + b0*k, a1 + b1*k, a2 + b2*k, a3 + b3*k, a4 + b4*k, a5 + b5*k,)\n'] = monomial_mulpow

def monomial_ldiv(A, B):
    (a0, a1, a2, a3, a4, a5,) = A
    (b0, b1, b2, b3, b4, b5,) = B
    return (a0 - b0, a1 - b1, a2 - b2, a3 - b3, a4 - b4, a5 - b5,)

BODIES['def monomial_ldiv(A, B):\n    (a0, a1, a2, a3, a4, a5,) = A\n    (b0, b1, b2, b3, b4, b5,) = B\n    return (a0 - b0, a1 - b1, a2 - b2, a3 - b3, a4 - b4, a5 - b5,)\n'] = monomial_ldiv

def monomial_div(A, B):
    (a0, a1, a2, a3, a4, a5,) = A
    (b0, b1, b2, b3, b4, b5,) = B
    r0 = a0 - b0
    if r0 < 0: return None
    r1 = a1 - b1
    if r1 < 0: return None
    r2 = a2 - b2
    if r2 < 0: return None
    r3 = a3 - b3
    if r3 < 0: return None
    r4 = a4 - b4
    if r4 < 0: return None
    r5 = a5 - b5
    if r5 < 0: return None
    return (r0, r1, r2, r3, r4, r5,)

BODIES['def monomial_div(A, B):\n    (a0, a1, a2, a3, a4, a5,) = A\n    (b0, b1, b2, b3, b4, b5,) = B\n    r0 = a0 - b0\n    if r0 < 0: return None\n    r1 = a1 - b1\n    if r1 < 0: return None\n    r2 = a2 - b2\n    if r2 < 0: return None\n    r3 = a3 - b3\n    if r3 < 0: return None\n    r4 = a4 - b4\n    if r4 < 0: return None\n    r5 = a5 - b5\n    if r5 < 0: return None\n    return (r0, r1, r2, r3, r4, r5,)\n'] = monomial_div

def monomial_lcm(A, B):
    (a0, a1, a2, a3, a4, a5,) = A
    (b0, b1, b2, b3, b4, b5,) = B
    return (a0 if a0 >= b0 else b0, a1 if a1 >= b1 else b1, a2 if a2 >= b2 else b2, a3 if a3 >= b3 else b3, a4 if a4 >= b4 else b4, a5 if a5 >= b5 else b5,)

BODIES['def monomial_lcm(A, B):\n    (a0, a1, a2, a3, a4, a5,) = A\n    (b0, b1, b2, b3, b4, b5,) = B\n    return (a0 if a0 >= b0 else b0, a1 if a1 >= b1 else b1, a2 if a2 >= b2 else b2, a3 if a3 >= b3 else b3, a4 if a4 >= b4 else b4, a5 if a5 >= b5 else b5,)\n'] = monomial_lcm

def monomial_gcd(A, B):
    (a0, a1, a2, a3, a4, a5,) = A
    (b0, b1, b2, b3, b4, b5,) = B
    return (a0 if a0 <= b0 else b0, a1 if a1 <= b1 else b1, a2 if a2 <= b2 else b2, a3 if a3 <= b3 else b3, a4 if a4 <= b4 else b4, a5 if a5 <= b5 else b5,)

BODIES['def monomial_gcd(A, B):\n    (a0, a1, a2, a3, a4, a5,) = A\n    (b0, b1, b2, b3, b4, b5,) = B\n    return (a0 if a0 <= b0 else b0, a1 if a1 <= b1 else b1, a2 if a2 <= b2 else b2, a3 if a3 <= b3 else b3, a4 if a4 <= b4 else b4, a5 if a5 <= b5 else b5,)\n'] = monomial_gcd

def monomial_mul(A, B):
    (a0, a1, a2, a3, a4, a5, a6,) = A
    (b0, b1, b2, b3, b4, b5, b6,) = B
    return (a0 + b0, a1 + b1, a2 + b2, a3 + b3, a4 + b4, a5 + b5, a6 + b6,)

BODIES['def monomial_mul(A, B):\n    (a0, a1, a2, a3, a4, a5, a6,) = A\n    (b0, b1, b2, b3, b4, b5, b6,) = B\n    return (a0 + b0, a1 + b1, a2 + b2, a3 + b3, a4 + b4, a5 + b5, a6 + b6,)\n'] = monomial_mul

def monomial_pow(A, k):
    (a0, a1, a2, a3, a4, a5, a6,) = A
    return (a0*k, a1*k, a2*k, a3*k, a4*k, a5*k, a6*k,)

BODIES['def monomial_pow(A, k):\n    (a0, a1, a2, a3, a4, a5, a6,) = A\n    return (a0*k, a1*k, a2*k, a3*k, a4*k, a5*k, a6*k,)\n'] = monomial_pow

def monomial_mulpow(A, B, k):
    (a0, a1, a2, a3, a4, a5, a6,) = A
    (b0, b1, b2, b3, b4, b5, b6,) = B
    return (a0 + b0*k, a1 + b1*k, a2 + b2*k, a3 + b3*k, a4 + b4*k, a5 + b5*k, a6 + b6*k,)

BODIES['def monomial_mulpow(A, B, k):\n    (a0, a1, a2, a3, a4, a5, a6,) = A\n    (b0, b1, b2, b3, b4, b5, b6,) = B\n    return (a0 + b0*k, a1 + b1*k, a2 + b2*k, a3 + b3*k, a4 + b4*k, a5 + b5*k, a6 + b6*k,)\n'] = monomial_mulpow

def monomial_ldiv(A, B):
    (a0, a1, a2, a3, a4, a5, a6,) = A
    (b0, b1, b2, b3, b4, b5, b6,) = B
    return (a0 - b0, a1 - b1, a2 - b2, a3 - b3, a4 - b4, a5 - b5, a6 - b6,)

BODIES['def monomial_ldiv(A, B):\n    (a0, a1, a2, a3, a4, a5, a6,) = A\n    (b0, b1, b2, b3, b4, b5, b6,) = B\n    return (a0 - b0, a1 - b1, a2 - b2, a3 - b3, a4 - b4, a5 - b5, a6 - b6,)\n'] = monomial_ldiv

def monomial_div(A, B):
    (a0, a1, a2, a3, a4, a5, a6,) = A
    (b0, b1, b2, b3, b4, b5, b6,) = B
    r0 = a0 - b0
    if r0 < 0: return None
    r1 = a1 - b1
    if r1 < 0: return None
    r2 = a2 - b2
    if r2 < 0: return None
    r3 = a3 - b3
    if r3 < 0: return None
    r4 = a4 - b4
    if r4 < 0: return None
    r5 = a5 - b5
    if r5 < 0: return None
    r6 = a6 - b6
    if r6 < 0: return None
    return (r0, r1, r2, r3, r4, r5, r6,)

BODIES['def monomial_div(A, B):\n    (a0, a1, a2, a3, a4, a5, a6,) = A\n    (b0, b1, b2, b3, b4, b5, b6,) = B\n    r0 = a0 - b0\n    if r0 < 0: return None\n    r1 = a1 - b1\n    if r1 < 0: return None\n    r2 = a2 - b2\n    if r2 < 0: return None\n    r3 = a3 - b3\n    if r3 < 0: return None\n    r4 = a4 - b4\n    if r4 < 0: return None\n    r5 = a5 - b5\n    if r5 < 0: return None\n    r6 = a6 - b6\n    if r6 < 0: return None\n    return (r0, r1, r2, r3, r4, r5, r6,)\n'] = monomial_div

def monomial_lcm(A, B):
    (a0, a1, a2, a3, a4, a5, a6,) = A
    (b0, b1, b2, b3, b4, b5, b6,) = B
    return (a0 if a0 >= b0 else b0, a1 if a1 >= b1 else b1, a2 if a2 >= b2 else b2, a3 if a3 >= b3 else b3, a4 if a4 >= b4 else b4, a5 if a5 >= b5 else b5, a6 if a6 >= b6 else b6,)

BODIES['def monomial_lcm(A, B):\n    (a0, a1, a2, a3, a4, a5, a6,) = A\n    (b0, b1, b2, b3, b4, b5, b6,) = B\n    return (a0 if a0 >= b0 else b0, a1 if a1 >= b1 else b1, a2 if a2 >= b2 else b2, a3 if a3 >= b3 else b3, a4 if a4 >= b4 else b4, a5 if a5 >= b5 else b5, a6 if a6 >= b6 else b6,)\n'] = monomial_lcm

def monomial_gcd(A, B):
    (a0, a1, a2, a3, a4, a5, a6,) = A
    (b0, b1, b2, b3, b4, b5, b6,) = B
    return (a0 if a0 <= b0 else b0, a1 if a1 <= b1 else b1, a2 if a2 <= b2 else b2, a3 if a3 <= b3 else b3, a4 if a4 <= b4 else b4, a5 if a5 <= b5 else b5, a6 if a6 <= b6 else b6,)

BODIES['def monomial_gcd(A, B):\n    (a0, a1, a2, a3, a4, a5, a6,) = A\n    (b0, b1, b2, b3, b4, b5, b6,) = B\n    return (a0 if a0 <= b0 else b0, a1 if a1 <= b1 else b1, a2 if a2 <= b2 else b2, a3 if a3 <= b3 else b3, a4 if a4 <= b4 else b4, a5 if a5 <= b5 else b5, a6 if a6 <= b6 else b6,)\n'] = monomial_gcd

def monomial_mul(A, B):
    (a0, a1, a2, a3, a4, a5, a6, a7,) = A
    (b0, b1, b2, b3, b4, b5, b6, b7,) = B
    return (a0 + b0, a1 + b1, a2 + b2, a3 + b3, a4 + b4, a5 + b5, a6 + b6, a7 + b7,)

BODIES['def monomial_mul(A, B):\n    (a0, a1, a2, a3, a4, a5, a6, a7,) = A\n    (b0, b1, b2, b3, b4, b5, b6, b7,) = B\n    return (a0 + b0, a1 + b1, a2 + b2, a3 + b3, a4 + b4, a5 + b5, a6 + b6, a7 + b7,)\n'] = monomial_mul

def monomial_pow(A, k):
    (a0, a1, a2, a3, a4, a5, a6, a7,) = A
    return (a0*k, a1*k, a2*k, a3*k, a4*k, a5*k, a6*k, a7*k,)

BODIES['def monomial_pow(A, k):\n    (a0, a1, a2, a3, a4, a5, a6, a7,) = A\n    return (a0*k, a1*k, a2*k, a3*k, a4*k, a5*k, a6*k, a7*k,)\n'] = monomial_pow

def monomial_mulpow(A, B, k):
    (a0, a1, a2, a3, a4, a5, a6, a7,) = A
    (b0, b1, b2, b3, b4, b5, b6, b7,) = B
    return (a0 + b0*k, a1 + b1*k, a2 + b2*k, a3 + b3*k, a4 + b4*k, a5 + b5*k, a6 + b6*k, a7 + b7*k,)

BODIES['def monomial_mulpow(A, B, k):\n    (a0, a1, a2, a3, a4, a5, a6, a7,) = A\n    (b0, b1, b2, b3, b4, b5, b6, b7,) = B\n    return (a0 + b0*k, a1 + b1*k, a2 + b2*k, a3 + b3*k, a4 + b4*k, a5 + b5*k, a6 + b6*k, a7 + b7*k,)\n'] = monomial_mulpow

def monomial_ldiv(A, B):
    (a0, a1, a2, a3, a4, a5, a6, a7,) = A
    (b0, b1, b2, b3, b4, b5, b6, b7,) = B
    return (a0 - b0, a1 - b1, a2 - b2, a3 - b3, a4 - b4, a5 - b5, a6 - b6, a7 - b7,)

BODIES['def monomial_ldiv(A, B):\n    (a0, a1, a2, a3, a4, a5, a6, a7,) = A\n    (b0, b1, b2, b3, b4, b5, b6, b7,) = B\n    return (a0 - b0, a1 - b1, a2 - b2, a3 - b3, a4 - b4, a5 - b5, a6 - b6, a7 - b7,)\n'] = monomial_ldiv

def monomial_div(A, B):
    (a0, a1, a2, a3, a4, a5, a6, a7,) = A
    (b0, b1, b2, b3, b4, b5, b6, b7,) = B
    r0 = a0 - b0
    if r0 < 0: return None
    r1 = a1 - b1
    if r1 < 0: return None
    r2 = a2 - b2
    if r2 < 0: return None
    r3 = a3 - b3
    if r3 < 0: return None
    r4 = a4 - b4
    if r4 < 0: return None
    r5 = a5 - b5
    if r5 < 0: return None
    r6 = a6 - b6
    if r6 < 0: return None
    r7 = a7 - b7
    if r7 < 0: return None
    return (r0, r1, r2, r3, r4, r5, r6, r7,)

BODIES['def monomial_div(A, B):\n    (a0, a1, a2, a3, a4, a5, a6, a7,) = A\n    (b0, b1, b2, b3, b4, b5, b6, b7,) = B\n    r0 = a0 - b0\n    if r0 < 0: return None\n    r1 = a1 - b1\n    if r1 < 0: return None\n    r2 = a2 - b2\n    if r2 < 0: return None\n    r3 = a3 - b3\n    if r3 < 0: return None\n    r4 = a4 - b4\n    if r4 < 0: return None\n    r5 = a5 - b5\n    if r5 < 0: return None\n    r6 = a6 - b6\n    if r6 < 0: return None\n    r7 = a7 - b7\n    if r7 < 0: return None\n    return (r0, r1, r2, r3, r4, r5, r6, r7,)\n'] = monomial_div

def monomial_lcm(A, B):
    (a0, a1, a2, a3, a4, a5, a6, a7,) = A
    (b0, b1, b2, b3, b4, b5, b6, b7,) = B
    return (a0 if a0 >= b0 else b0, a1 if a1 >= b1 else b1, a2 if a2 >= b2 else b2, a3 if a3 >= b3 else b3, a4 if a4 >= b4 else b4, a5 if a5 >= b5 else b5, a6 if a6 >= b6 else b6, a7 if a7 >= b7 else b7,)

BODIES['def monomial_lcm(A, B):\n    (a0, a1, a2, a3, a4, a5, a6, a7,) = A\n    (b0, b1, b2, b3, b4, b5, b6, b7,) = B\n    return (a0 if a0 >= b0 else b0, a1 if a1 >= b1 else b1, a2 if a2 >= b2 else b2, a3 if a3 >= b3 else b3, a4 if a4 >= b4 else b4, a5 if a5 >= b5 else b5, a6 if a6 >= b6 else b6, a7 if a7 >= b7 else b7,)\n'] = monomial_lcm

def monomial_gcd(A, B):
    (a0, a1, a2, a3, a4, a5, a6, a7,) = A
    (b0, b1, b2, b3, b4, b5, b6, b7,) = B
    return (a0 if a0 <= b0 else b0, a1 if a1 <= b1 else b1, a2 if a2 <= b2 else b2, a3 if a3 <= b3 else b3, a4 if a4 <= b4 else b4, a5 if a5 <= b5 else b5, a6 if a6 <= b6 else b6, a7 if a7 <= b7 else b7,)

BODIES['def monomial_gcd(A, B):\n    (a0, a1, a2, a3, a4, a5, a6, a7,) = A\n    (b0, b1, b2, b3, b4, b5, b6, b7,) = B\n    return (a0 if a0 <= b0 else b0, a1 if a1 <= b1 else b1, a2 if a2 <= b2 else b2, a3 if a3 <= b3 else b3, a4 if a4 <= b4 else b4, a5 if a5 <= b5 else b5, a6 if a6 <= b6 else b6, a7 if a7 <= b7 else b7,)\n'] = monomial_gcd

def monomial_mul(A, B):
    (a0, a1, a2, a3, a4, a5, a6, a7, a8,) = A
    (b0, b1, b2, b3, b4, b5, b6, b7, b8,) = B
    return (a0 + b0, a1 + b1, a2 + b2, a3 + b3, a4 + b4, a5 + b5, a6 + b6, a7 + b7, a8 + b8,)

BODIES['def monomial_mul(A, B):\n    (a0, a1, a2, a3, a4, a5, a6, a7, a8,) = A\n    (b0, b1, b2, b3, b4, b5, b6, b7, b8,) = B\n    return (a0 + b0, a1 + b1, a2 + b2, a3 + b3, a4 + b4, a5 + b5, a6 + b6, a7 + b7, a8 + b8,)\n'] = monomial_mul

def monomial_pow(A, k):
    (a0, a1, a2, a3, a4, a5, a6, a7, a8,) = A
    return (a0*k, a1*k, a2*k, a3*k, a4*k, a5*k, a6*k, a7*k, a8*k,)

BODIES['def monomial_pow(A, k):\n    (a0, a1, a2, a3, a4, a5, a6, a7, a8,) = A\n    return (a0*k, a1*k, a2*k, a3*k, a4*k, a5*k, a6*k, a7*k, a8*k,)\n'] = monomial_pow

def monomial_mulpow(A, B, k):
    (a0, a1, a2, a3, a4, a5, a6, a7, a8,) = A
    (b0, b1, b2, b3, b4, b5, b6, b7, b8,) = B
    return (a0 + b0*k, a1 + b1*k, a2 + b2*k, a3 + b3*k, a4 + b4*k, a5 + b5*k, a6 + b6*k, a7 + b7*k, a8 + b8*k,)

BODIES['def monomial_mulpow(A, B, k):\n    (a0, a1, a2, a3, a4, a5, a6, a7, a8,) = A\n    (b0, b1, b2, b3, b4, b5, b6, b7, b8,) = B\n    return (a0 + b0*k, a1 + b1*k, a2 + b2*k, a3 + b3*k, a4 + b4*k, a5 + b5*k, a6 + b6*k, a7 + b7*k, a8 + b8*k,)\n'] = monomial_mulpow

def monomial_ldiv(A, B):
    (a0, a1, a2, a3, a4, a5, a6, a7, a8,) = A
    (b0, b1, b2, b3, b4, b5, b6, b7, b8,) = B
    return (a0 - b0, a1 - b1, a2 - b2, a3 - b3, a4 - b4, a5 - b5, a6 - b6, a7 - b7, a8 - b8,)

BODIES['def monomial_ldiv(A, B):\n    (a0, a1, a2, a3, a4, a5, a6, a7, a8,) = A\n    (b0, b1, b2, b3, b4, b5, b6, b7, b8,) = B\n    return (a0 - b0, a1 - b1, a2 - b2, a3 - b3, a4 - b4, a5 - b5, a6 - b6, a7 - b7, a8 - b8,)\n'] = monomial_ldiv

def monomial_div(A, B):
    (a0, a1, a2, a3, a4, a5, a6, a7, a8,) = A
    (b0, b1, b2, b3, b4, b5, b6, b7, b8,) = B
    r0 = a0 - b0
    if r0 < 0: return None
    r1 = a1 - b1
    if r1 < 0: return None
    r2 = a2 - b2
    if r2 < 0: return None
    r3 = a3 - b3
    if r3 < 0: return None
    r4 = a4 - b4
    if r4 < 0: return None
    r5 = a5 - b5
    if r5 < 0: return None
    r6 = a6 - b6
    if r6 < 0: return None
    r7 = a7 - b7
    if r7 < 0: return None
    r8 = a8 - b8
    if r8 < 0: return None
    return (r0, r1, r2, r3, r4, r5, r6, r7, r8,)

BODIES['def monomial_div(A, B):\n    (a0, a1, a2, a3, a4, a5, a6, a7, a8,) = A\n    (b0, b1, b2, b3, b4, b5, b6, b7, b8,) = B\n    r0 = a0 - b0\n    if r0 < 0: return None\n    r1 = a1 - b1\n    if r1 < 0: return None\n    r2 = a2 - b2\n    if r2 < 0: return None\n    r3 = a3 - b3\n    if r3 < 0: return None\n    r4 = a4 - b4\n    if r4 < 0: return None\n    r5 = a5 - b5\n    if r5 < 0: return None\n    r6 = a6 - b6\n    if r6 < 0: return None\n    r7 = a7 - b7\n    if r7 < 0: return None\n    r8 = a8 - b8\n    if r8 < 0: return None\n    return (r0, r1, r2, r3, r4, r5, r6, r7, r8,)\n'] = monomial_div

def monomial_lcm(A, B):
    (a0, a1, a2, a3, a4, a5, a6, a7, a8,) = A
    (b0, b1, b2, b3, b4, b5, b6, b7, b8,) = B
    return (a0 if a0 >= b0 else b0, a1 if a1 >= b1 else b1, a2 if a2 >= b2 else b2, a3 if a3 >= b3 else b3, a4 if a4 >= b4 else b4, a5 if a5 >= b5 else b5, a6 if a6 >= b6 else b6, a7 if a7 >= b7 else b7, a8 if a8 >= b8 else b8,)

BODIES['def monomial_lcm(A, B):\n    (a0, a1, a2, a3, a4, a5, a6, a7, a8,) = A\n    (b0, b1, b2, b3, b4, b5, b6, b7, b8,) = B\n    return (a0 if a0 >= b0 else b0, a1 if a1 >= b1 else b1, a2 if a2 >= b2 else b2, a3 if a3 >= b3 else b3, a4 if a4 >= b4 else b4, a5 if a5 >= b5 else b5, a6 if a6 >= b6 else b6, a7 if a7 >= b7 else b7, a8 if a8 >= b8 else b8,)\n'] = monomial_lcm

def monomial_gcd(A, B):
    (a0, a1, a2, a3, a4, a5, a6, a7, a8,) = A
    (b0, b1, b2, b3, b4, b5, b6, b7, b8,) = B
    return (a0 if a0 <= b0 else b0, a1 if a1 <= b1 else b1, a2 if a2 <= b2 else b2, a3 if a3 <= b3 else b3, a4 if a4 <= b4 else b4, a5 if a5 <= b5 else b5, a6 if a6 <= b6 else b6, a7 if a7 <= b7 else b7, a8 if a8 <= b8 else b8,)

BODIES['def monomial_gcd(A, B):\n    (a0, a1, a2, a3, a4, a5, a6, a7, a8,) = A\n    (b0, b1, b2, b3, b4, b5, b6, b7, b8,) = B\n    return (a0 if a0 <= b0 else b0, a1 if a1 <= b1 else b1, a2 if a2 <= b2 else b2, a3 if a3 <= b3 else b3, a4 if a4 <= b4 else b4, a5 if a5 <= b5 else b5, a6 if a6 <= b6 else b6, a7 if a7 <= b7 else b7, a8 if a8 <= b8 else b8,)\n'] = monomial_gcd

def monomial_mul(A, B):
    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9,) = A
    (b0, b1, b2, b3, b4, b5, b6, b7, b8, b9,) = B
    return (a0 + b0, a1 + b1, a2 + b2, a3 + b3, a4 + b4, a5 + b5, a6 + b6, a7 + b7, a8 + b8, a9 + b9,)

BODIES['def monomial_mul(A, B):\n    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9,) = A\n    (b0, b1, b2, b3, b4, b5, b6, b7, b8, b9,) = B\n    return (a0 + b0, a1 + b1, a2 + b2, a3 + b3, a4 + b4, a5 + b5, a6 + b6, a7 + b7, a8 + b8, a9 + b9,)\n'] = monomial_mul

def monomial_pow(A, k):
    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9,) = A
    return (a0*k, a1*k, a2*k, a3*k, a4*k, a5*k, a6*k, a7*k, a8*k, a9*k,)

BODIES['def monomial_pow(A, k):\n    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9,) = A\n    return (a0*k, a1*k, a2*k, a3*k, a4*k, a5*k, a6*k, a7*k, a8*k, a9*k,)\n'] = monomial_pow

def monomial_mulpow(A, B, k):
    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9,) = A
    (b0, b1, b2, b3, b4, b5, b6, b7, b8, b9,) = B
    return (a0 + b0*k, a1 + b1*k, a2 + b2*k, a3 + b3*k, a4 + b4*k, a5 + b5*k, a6 + b6*k, a7 + b7*k, a8 + b8*k, a9 + b9*k,)

BODIES['def monomial_mulpow(A, B, k):\n    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9,) = A\n    (b0, b1, b2, b3, b4, b5, b6, b7, b8, b9,) = B\n    return (a0 + b0*k, a1 + b1*k, a2 + b2*k, a3 + b3*k, a4 + b4*k, a5 + b5*k, a6 + b6*k, a7 + b7*k, a8 + b8*k, a9 + b9*k,)\n'] = monomial_mulpow

def monomial_ldiv(A, B):
    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9,) = A
    (b0, b1, b2, b3, b4, b5, b6, b7, b8, b9,) = B
    return (a0 - b0, a1 - b1, a2 - b2, a3 - b3, a4 - b4, a5 - b5, a6 - b6, a7 - b7, a8 - b8, a9 - b9,)

BODIES['def monomial_ldiv(A, B):\n    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9,) = A\n    (b0, b1, b2, b3, b4, b5, b6, b7, b8, b9,) = B\n    return (a0 - b0, a1 - b1, a2 - b2, a3 - b3, a4 - b4, a5 - b5, a6 - b6, a7 - b7, a8 - b8, a9 - b9,)\n'] = monomial_ldiv

def monomial_div(A, B):
    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9,) = A
    (b0, b1, b2, b3, b4, b5, b6, b7, b8, b9,) = B
    r0 = a0 - b0
    if r0 < 0: return None
    r1 = a1 - b1
    if r1 < 0: return None
    r2 = a2 - b2
    if r2 < 0: return None
    r3 = a3 - b3
    if r3 < 0: return None
    r4 = a4 - b4
    if r4 < 0: return None
    r5 = a5 - b5
    if r5 < 0: return None
    r6 = a6 - b6
    if r6 < 0: return None
    r7 = a7 - b7
    if r7 < 0: return None
    r8 = a8 - b8
    if r8 < 0: return None
    r9 = a9 - b9
    if r9 < 0: return None
    return (r0, r1, r2, r3, r4, r5, r6, r7, r8, r9,)

BODIES['def monomial_div(A, B):\n    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9,) = A\n    (b0, b1, b2, b3, b4, b5, b6, b7, b8, b9,) = B\n    r0 = a0 - b0\n    if r0 < 0: return None\n    r1 = a1 - b1\n    if r1 < 0: return None\n    r2 = a2 - b2\n    if r2 < 0: return None\n    r3 = a3 - b3\n    if r3 < 0: return None\n    r4 = a4 - b4\n    if r4 < 0: return None\n    r5 = a5 - b5\n    if r5 < 0: return None\n    r6 = a6 - b6\n    if r6 < 0: return None\n    r7 = a7 - b7\n    if r7 < 0: return None\n    r8 = a8 - b8\n    if r8 < 0: return None\n    r9 = a9 - b9\n    if r9 < 0: return None\n    return (r0, r1, r2, r3, r4, r5, r6, r7, r8, r9,)\n'] = monomial_div

def monomial_lcm(A, B):
    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9,) = A
    (b0, b1, b2, b3, b4, b5, b6, b7, b8, b9,) = B
    return (a0 if a0 >= b0 else b0, a1 if a1 >= b1 else b1, a2 if a2 >= b2 else b2, a3 if a3 >= b3 else b3, a4 if a4 >= b4 else b4, a5 if a5 >= b5 else b5, a6 if a6 >= b6 else b6, a7 if a7 >= b7 else b7, a8 if a8 >= b8 else b8, a9 if a9 >= b9 else b9,)

BODIES['def monomial_lcm(A, B):\n    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9,) = A\n    (b0, b1, b2, b3, b4, b5, b6, b7, b8, b9,) = B\n    return (a0 if a0 >= b0 else b0, a1 if a1 >= b1 else b1, a2 if a2 >= b2 else b2, a3 if a3 >= b3 else b3, a4 if a4 >= b4 else b4, a5 if a5 >= b5 else b5, a6 if a6 >= b6 else b6, a7 if a7 >= b7 else b7, a8 if a8 >= b8 else b8, a9 if a9 >= b9 else b9,)\n'] = monomial_lcm

def monomial_gcd(A, B):
    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9,) = A
    (b0, b1, b2, b3, b4, b5, b6, b7, b8, b9,) = B
    return (a0 if a0 <= b0 else b0, a1 if a1 <= b1 else b1, a2 if a2 <= b2 else b2, a3 if a3 <= b3 else b3, a4 if a4 <= b4 else b4, a5 if a5 <= b5 else b5, a6 if a6 <= b6 else b6, a7 if a7 <= b7 else b7, a8 if a8 <= b8 else b8, a9 if a9 <= b9 else b9,)

BODIES['def monomial_gcd(A, B):\n    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9,) = A\n    (b0, b1, b2, b3, b4, b5, b6, b7, b8, b9,) = B\n    return (a0 if a0 <= b0 else b0, a1 if a1 <= b1 else b1, a2 if a2 <= b2 else b2, a3 if a3 <= b3 else b3, a4 if a4 <= b4 else b4, a5 if a5 <= b5 else b5, a6 if a6 <= b6 else b6, a7 if a7 <= b7 else b7, a8 if a8 <= b8 else b8, a9 if a9 <= b9 else b9,)\n'] = monomial_gcd

def monomial_mul(A, B):
    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10,) = A
    (b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10,) = B
    return (a0 + b0, a1 + b1, a2 + b2, a3 + b3, a4 + b4, a5 + b5, a6 + b6, a7 + b7, a8 + b8, a9 + b9, a10 + b10,)

BODIES['def monomial_mul(A, B):\n    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10,) = A\n    (b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10,) = B\n    return (a0 + b0, a1 + b1, a2 + b2, a3 + b3, a4 + b4, a5 + b5, a6 + b6, a7 + b7, a8 + b8, a9 + b9, a10 + b10,)\n'] = monomial_mul

def monomial_pow(A, k):
    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10,) = A
    return (a0*k, a1*k, a2*k, a3*k, a4*k, a5*k, a6*k, a7*k, a8*k, a9*k, a10*k,)

BODIES['def monomial_pow(A, k):\n    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10,) = A\n    return (a0*k, a1*k, a2*k, a3*k, a4*k, a5*k, a6*k, a7*k, a8*k, a9*k, a10*k,)\n'] = monomial_pow

def monomial_mulpow(A, B, k):
    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10,) = A
    (b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10,) = B
    return (a0 + b0*k, a1 + b1*k, a2 + b2*k, a3 + b3*k, a4 + b4*k, a5 + b5*k, a6 + b6*k, a7 + b7*k, a8 + b8*k, a9 + b9*k, a10 + b10*k,)

BODIES['def monomial_mulpow(A, B, k):\n    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10,) = A\n    (b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10,) = B\n    return (a0 + b0*k, a1 + b1*k, a2 + b2*k, a3 + b3*k, a4 + b4*k, a5 + b5*k, a6 + b6*k, a7 + b7*k, a8 + b8*k, a9 + b9*k, a10 + b10*k,)\n'] = monomial_mulpow

def monomial_ldiv(A, B):
    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10,) = A
    (b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10,) = B
    return (a0 - b0, a1 - b1, a2 - b2, a3 - b3, a4 - b4, a5 - b5, a6 - b6, a7 - b7, a8 - b8, a9 - b9, a10 - b10,)

BODIES['def monomial_ldiv(A, B):\n    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10,) = A\n    (b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10,) = B\n    return (a0 - b0, a1 - b1, a2 - b2, a3 - b3, a4 - b4, a5 - b5, a6 - b6, a7 - b7, a8 - b8, a9 - b9, a10 - b10,)\n'] = monomial_ldiv

def monomial_div(A, B):
    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10,) = A
    (b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10,) = B
    r0 = a0 - b0
    if r0 < 0: return None
    r1 = a1 - b1
    if r1 < 0: return None
    r2 = a2 - b2
    if r2 < 0: return None
    r3 = a3 - b3
    if r3 < 0: return None
    r4 = a4 - b4
    if r4 < 0: return None
    r5 = a5 - b5
    if r5 < 0: return None
    r6 = a6 - b6
    if r6 < 0: return None
    r7 = a7 - b7
    if r7 < 0: return None
    r8 = a8 - b8
    if r8 < 0: return None
    r9 = a9 - b9
    if r9 < 0: return None
    r10 = a10 - b10
    if r10 < 0: return None
    return (r0, r1, r2, r3, r4, r5, r6, r7, r8, r9, r10,)

BODIES['def monomial_div(A, B):\n    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10,) = A\n    (b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10,) = B\n    r0 = a0 - b0\n    if r0 < 0: return None\n    r1 = a1 - b1\n    if r1 < 0: return None\n    r2 = a2 - b2\n    if r2 < 0: return None\n    r3 = a3 - b3\n    if r3 < 0: return None\n    r4 = a4 - b4\n    if r4 < 0: return None\n    r5 = a5 - b5\n    if r5 < 0: return None\n    r6 = a6 - b6\n    if r6 < 0: return None\n    r7 = a7 - b7\n    if r7 < 0: return None\n    r8 = a8 - b8\n    if r8 < 0: return None\n    r9 = a9 - b9\n    if r9 < 0: return None\n    r10 = a10 - b10\n    if r10 < 0: return None\n    return (r0, r1, r2, r3, r4, r5, r6, r7, r8, r9, r10,)\n'] = monomial_div

def monomial_lcm(A, B):
    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10,) = A
    (b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10,) = B
    return (a0 if a0 >= b0 else b0, a1 if a1 >= b1 else b1, a2 if a2 >= b2 else b2, a3 if a3 >= b3 else b3, a4 if a4 >= b4 else b4, a5 if a5 >= b5 else b5, a6 if a6 >= b6 else b6, a7 if a7 >= b7 else b7, a8 if a8 >= b8 else b8, a9 if a9 >= b9 else b9, a10 if a10 >= b10 else b10,)

BODIES['def monomial_lcm(A, B):\n    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10,) = A\n    (b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10,) = B\n    return (a0 if a0 >= b0 else b0, a1 if a1 >= b1 else b1, a2 if a2 >= b2 else b2, a3 if a3 >= b3 else b3, a4 if a4 >= b4 else b4, a5 if a5 >= b5 else b5, a6 if a6 >= b6 else b6, a7 if a7 >= b7 else b7, a8 if a8 >= b8 else b8, a9 if a9 >= b9 else b9, a10 if a10 >= b10 else b10,)\n'] = monomial_lcm

def monomial_gcd(A, B):
    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10,) = A
    (b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10,) = B
    return (a0 if a0 <= b0 else b0, a1 if a1 <= b1 else b1, a2 if a2 <= b2 else b2, a3 if a3 <= b3 else b3, a4 if a4 <= b4 else b4, a5 if a5 <= b5 else b5, a6 if a6 <= b6 else b6, a7 if a7 <= b7 else b7, a8 if a8 <= b8 else b8, a9 if a9 <= b9 else b9, a10 if a10 <= b10 else b10,)

BODIES['def monomial_gcd(A, B):\n    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10,) = A\n    (b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10,) = B\n    return (a0 if a0 <= b0 else b0, a1 if a1 <= b1 else b1, a2 if a2 <= b2 else b2, a3 if a3 <= b3 else b3, a4 if a4 <= b4 else b4, a5 if a5 <= b5 else b5, a6 if a6 <= b6 else b6, a7 if a7 <= b7 else b7, a8 if a8 <= b8 else b8, a9 if a9 <= b9 else b9, a10 if a10 <= b10 else b10,)\n'] = monomial_gcd

def monomial_mul(A, B):
    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11,) = A
    (b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11,) = B
    return (a0 + b0, a1 + b1, a2 + b2, a3 + b3, a4 + b4, a5 + b5, a6 + b6, a7 + b7, a8 + b8, a9 + b9, a10 + b10, a11 + b11,)

BODIES['def monomial_mul(A, B):\n    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11,) = A\n    (b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11,) = B\n    return (a0 + b0, a1 + b1, a2 + b2, a3 + b3, a4 + b4, a5 + b5, a6 + b6, a7 + b7, a8 + b8, a9 + b9, a10 + b10, a11 + b11,)\n'] = monomial_mul

def monomial_pow(A, k):
    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11,) = A
    return (a0*k, a1*k, a2*k, a3*k, a4*k, a5*k, a6*k, a7*k, a8*k, a9*k, a10*k, a11*k,)

BODIES['def monomial_pow(A, k):\n    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11,) = A\n    return (a0*k, a1*k, a2*k, a3*k, a4*k, a5*k, a6*k, a7*k, a8*k, a9*k, a10*k, a11*k,)\n'] = monomial_pow

def monomial_mulpow(A, B, k):
    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11,) = A
    (b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11,) = B
    return (a0 + b0*k, a1 + b1*k, a2 + b2*k, a3 + b3*k, a4 + b4*k, a5 + b5*k, a6 + b6*k, a7 + b7*k, a8 + b8*k, a9 + b9*k, a10 + b10*k, a11 + b11*k,)

BODIES['def monomial_mulpow(A, B, k):\n    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11,) = A\n    (b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11,) = B\n    return (a0 + b0*k, a1 + b1*k, a2 + b2*k, a3 + b3*k, a4 + b4*k, a5 + b5*k, a6 + b6*k, a7 + b7*k, a8 + b8*k, a9 + b9*k, a10 + b10*k, a11 + b11*k,)\n'] = monomial_mulpow

def monomial_ldiv(A, B):
    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11,) = A
    (b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11,) = B
    return (a0 - b0, a1 - b1, a2 - b2, a3 - b3, a4 - b4, a5 - b5, a6 - b6, a7 - b7, a8 - b8, a9 - b9, a10 - b10, a11 - b11,)

BODIES['def monomial_ldiv(A, B):\n    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11,) = A\n    (b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11,) = B\n    return (a0 - b0, a1 - b1, a2 - b2, a3 - b3, a4 - b4, a5 - b5, a6 - b6, a7 - b7, a8 - b8, a9 - b9, a10 - b10, a11 - b11,)\n'] = monomial_ldiv

def monomial_div(A, B):
    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11,) = A
    (b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11,) = B
    r0 = a0 - b0
    if r0 < 0: return None
    r1 = a1 - b1
    if r1 < 0: return None
    r2 = a2 - b2
    if r2 < 0: return None
    r3 = a3 - b3
    if r3 < 0: return None
    r4 = a4 - b4
    if r4 < 0: return None
    r5 = a5 - b5
    if r5 < 0: return None
    r6 = a6 - b6
    if r6 < 0: return None
    r7 = a7 - b7
    if r7 < 0: return None
    r8 = a8 - b8
    if r8 < 0: return None
    r9 = a9 - b9
    if r9 < 0: return None
    r10 = a10 - b10
    if r10 < 0: return None
    r11 = a11 - b11
    if r11 < 0: return None
    return (r0, r1, r2, r3, r4, r5, r6, r7, r8, r9, r10, r11,)

BODIES['def monomial_div(A, B):\n    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11,) = A\n    (b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11,) = B\n    r0 = a0 - b0\n    if r0 < 0: return None\n    r1 = a1 - b1\n    if r1 < 0: return None\n    r2 = a2 - b2\n    if r2 < 0: return None\n    r3 = a3 - b3\n    if r3 < 0: return None\n    r4 = a4 - b4\n    if r4 < 0: return None\n    r5 = a5 - b5\n    if r5 < 0: return None\n    r6 = a6 - b6\n    if r6 < 0: return None\n    r7 = a7 - b7\n    if r7 < 0: return None\n    r8 = a8 - b8\n    if r8 < 0: return None\n    r9 = a9 - b9\n    if r9 < 0: return None\n    r10 = a10 - b10\n    if r10 < 0: return None\n    r11 = a11 - b11\n    if r11 < 0: return None\n    return (r0, r1, r2, r3, r4, r5, r6, r7, r8, r9, r10, r11,)\n'] = monomial_div

def monomial_lcm(A, B):
    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11,) = A
    (b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11,) = B
    return (a0 if a0 >= b0 else b0, a1 if a1 >= b1 else b1, a2 if a2 >= b2 else b2, a3 if a3 >= b3 else b3, a4 if a4 >= b4 else b4, a5 if a5 >= b5 else b5, a6 if a6 >= b6 else b6, a7 if a7 >= b7 else b7, a8 if a8 >= b8 else b8, a9 if a9 >= b9 else b9, a10 if a10 >= b10 else b10, a11 if a11 >= b11 else b11,)

BODIES['def monomial_lcm(A, B):\n    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11,) = A\n    (b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11,) = B\n    return (a0 if a0 >= b0 else b0, a1 if a1 >= b1 else b1, a2 if a2 >= b2 else b2, a3 if a3 >= b3 else b3, a4 if a4 >= b4 else b4, a5 if a5 >= b5 else b5, a6 if a6 >= b6 else b6, a7 if a7 >= b7 else b7, a8 if a8 >= b8 else b8, a9 if a9 >= b9 else b9, a10 if a10 >= b10 else b10, a11 if a11 >= b11 else b11,)\n'] = monomial_lcm

def monomial_gcd(A, B):
    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11,) = A
    (b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11,) = B
    return (a0 if a0 <= b0 else b0, a1 if a1 <= b1 else b1, a2 if a2 <= b2 else b2, a3 if a3 <= b3 else b3, a4 if a4 <= b4 else b4, a5 if a5 <= b5 else b5, a6 if a6 <= b6 else b6, a7 if a7 <= b7 else b7, a8 if a8 <= b8 else b8, a9 if a9 <= b9 else b9, a10 if a10 <= b10 else b10, a11 if a11 <= b11 else b11,)

BODIES['def monomial_gcd(A, B):\n    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11,) = A\n    (b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11,) = B\n    return (a0 if a0 <= b0 else b0, a1 if a1 <= b1 else b1, a2 if a2 <= b2 else b2, a3 if a3 <= b3 else b3, a4 if a4 <= b4 else b4, a5 if a5 <= b5 else b5, a6 if a6 <= b6 else b6, a7 if a7 <= b7 else b7, a8 if a8 <= b8 else b8, a9 if a9 <= b9 else b9, a10 if a10 <= b10 else b10, a11 if a11 <= b11 else b11,)\n'] = monomial_gcd
