"""sympy's monomial arithmetic (MonomialOps) for 1 to 12 generators, compiled with
the package: each function as sympy's template writes it. Written by
monomial_ops.monomial_bodies_source(); tests/test_monomial_ops.py holds this file
to it."""

# mypy: ignore-errors
# ruff: noqa

SYMPY_VERSION = '1.14.0'
BODIES = {}

def monomial_mul(A, B):
    (a0,) = A
    (b0,) = B
    return (a0 + b0,)

BODIES['mul', 1] = monomial_mul

def monomial_pow(A, k):
    (a0,) = A
    return (a0*k,)

BODIES['pow', 1] = monomial_pow

def monomial_mulpow(A, B, k):
    (a0,) = A
    (b0,) = B
    return (a0 + b0*k,)

BODIES['mulpow', 1] = monomial_mulpow

def monomial_ldiv(A, B):
    (a0,) = A
    (b0,) = B
    return (a0 - b0,)

BODIES['ldiv', 1] = monomial_ldiv

def monomial_div(A, B):
    (a0,) = A
    (b0,) = B
    r0 = a0 - b0
    if r0 < 0: return None
    return (r0,)

BODIES['div', 1] = monomial_div

def monomial_lcm(A, B):
    (a0,) = A
    (b0,) = B
    return (a0 if a0 >= b0 else b0,)

BODIES['lcm', 1] = monomial_lcm

def monomial_gcd(A, B):
    (a0,) = A
    (b0,) = B
    return (a0 if a0 <= b0 else b0,)

BODIES['gcd', 1] = monomial_gcd

def monomial_mul(A, B):
    (a0, a1,) = A
    (b0, b1,) = B
    return (a0 + b0, a1 + b1,)

BODIES['mul', 2] = monomial_mul

def monomial_pow(A, k):
    (a0, a1,) = A
    return (a0*k, a1*k,)

BODIES['pow', 2] = monomial_pow

def monomial_mulpow(A, B, k):
    (a0, a1,) = A
    (b0, b1,) = B
    return (a0 + b0*k, a1 + b1*k,)

BODIES['mulpow', 2] = monomial_mulpow

def monomial_ldiv(A, B):
    (a0, a1,) = A
    (b0, b1,) = B
    return (a0 - b0, a1 - b1,)

BODIES['ldiv', 2] = monomial_ldiv

def monomial_div(A, B):
    (a0, a1,) = A
    (b0, b1,) = B
    r0 = a0 - b0
    if r0 < 0: return None
    r1 = a1 - b1
    if r1 < 0: return None
    return (r0, r1,)

BODIES['div', 2] = monomial_div

def monomial_lcm(A, B):
    (a0, a1,) = A
    (b0, b1,) = B
    return (a0 if a0 >= b0 else b0, a1 if a1 >= b1 else b1,)

BODIES['lcm', 2] = monomial_lcm

def monomial_gcd(A, B):
    (a0, a1,) = A
    (b0, b1,) = B
    return (a0 if a0 <= b0 else b0, a1 if a1 <= b1 else b1,)

BODIES['gcd', 2] = monomial_gcd

def monomial_mul(A, B):
    (a0, a1, a2,) = A
    (b0, b1, b2,) = B
    return (a0 + b0, a1 + b1, a2 + b2,)

BODIES['mul', 3] = monomial_mul

def monomial_pow(A, k):
    (a0, a1, a2,) = A
    return (a0*k, a1*k, a2*k,)

BODIES['pow', 3] = monomial_pow

def monomial_mulpow(A, B, k):
    (a0, a1, a2,) = A
    (b0, b1, b2,) = B
    return (a0 + b0*k, a1 + b1*k, a2 + b2*k,)

BODIES['mulpow', 3] = monomial_mulpow

def monomial_ldiv(A, B):
    (a0, a1, a2,) = A
    (b0, b1, b2,) = B
    return (a0 - b0, a1 - b1, a2 - b2,)

BODIES['ldiv', 3] = monomial_ldiv

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

BODIES['div', 3] = monomial_div

def monomial_lcm(A, B):
    (a0, a1, a2,) = A
    (b0, b1, b2,) = B
    return (a0 if a0 >= b0 else b0, a1 if a1 >= b1 else b1, a2 if a2 >= b2 else b2,)

BODIES['lcm', 3] = monomial_lcm

def monomial_gcd(A, B):
    (a0, a1, a2,) = A
    (b0, b1, b2,) = B
    return (a0 if a0 <= b0 else b0, a1 if a1 <= b1 else b1, a2 if a2 <= b2 else b2,)

BODIES['gcd', 3] = monomial_gcd

def monomial_mul(A, B):
    (a0, a1, a2, a3,) = A
    (b0, b1, b2, b3,) = B
    return (a0 + b0, a1 + b1, a2 + b2, a3 + b3,)

BODIES['mul', 4] = monomial_mul

def monomial_pow(A, k):
    (a0, a1, a2, a3,) = A
    return (a0*k, a1*k, a2*k, a3*k,)

BODIES['pow', 4] = monomial_pow

def monomial_mulpow(A, B, k):
    (a0, a1, a2, a3,) = A
    (b0, b1, b2, b3,) = B
    return (a0 + b0*k, a1 + b1*k, a2 + b2*k, a3 + b3*k,)

BODIES['mulpow', 4] = monomial_mulpow

def monomial_ldiv(A, B):
    (a0, a1, a2, a3,) = A
    (b0, b1, b2, b3,) = B
    return (a0 - b0, a1 - b1, a2 - b2, a3 - b3,)

BODIES['ldiv', 4] = monomial_ldiv

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

BODIES['div', 4] = monomial_div

def monomial_lcm(A, B):
    (a0, a1, a2, a3,) = A
    (b0, b1, b2, b3,) = B
    return (a0 if a0 >= b0 else b0, a1 if a1 >= b1 else b1, a2 if a2 >= b2 else b2, a3 if a3 >= b3 else b3,)

BODIES['lcm', 4] = monomial_lcm

def monomial_gcd(A, B):
    (a0, a1, a2, a3,) = A
    (b0, b1, b2, b3,) = B
    return (a0 if a0 <= b0 else b0, a1 if a1 <= b1 else b1, a2 if a2 <= b2 else b2, a3 if a3 <= b3 else b3,)

BODIES['gcd', 4] = monomial_gcd

def monomial_mul(A, B):
    (a0, a1, a2, a3, a4,) = A
    (b0, b1, b2, b3, b4,) = B
    return (a0 + b0, a1 + b1, a2 + b2, a3 + b3, a4 + b4,)

BODIES['mul', 5] = monomial_mul

def monomial_pow(A, k):
    (a0, a1, a2, a3, a4,) = A
    return (a0*k, a1*k, a2*k, a3*k, a4*k,)

BODIES['pow', 5] = monomial_pow

def monomial_mulpow(A, B, k):
    (a0, a1, a2, a3, a4,) = A
    (b0, b1, b2, b3, b4,) = B
    return (a0 + b0*k, a1 + b1*k, a2 + b2*k, a3 + b3*k, a4 + b4*k,)

BODIES['mulpow', 5] = monomial_mulpow

def monomial_ldiv(A, B):
    (a0, a1, a2, a3, a4,) = A
    (b0, b1, b2, b3, b4,) = B
    return (a0 - b0, a1 - b1, a2 - b2, a3 - b3, a4 - b4,)

BODIES['ldiv', 5] = monomial_ldiv

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

BODIES['div', 5] = monomial_div

def monomial_lcm(A, B):
    (a0, a1, a2, a3, a4,) = A
    (b0, b1, b2, b3, b4,) = B
    return (a0 if a0 >= b0 else b0, a1 if a1 >= b1 else b1, a2 if a2 >= b2 else b2, a3 if a3 >= b3 else b3, a4 if a4 >= b4 else b4,)

BODIES['lcm', 5] = monomial_lcm

def monomial_gcd(A, B):
    (a0, a1, a2, a3, a4,) = A
    (b0, b1, b2, b3, b4,) = B
    return (a0 if a0 <= b0 else b0, a1 if a1 <= b1 else b1, a2 if a2 <= b2 else b2, a3 if a3 <= b3 else b3, a4 if a4 <= b4 else b4,)

BODIES['gcd', 5] = monomial_gcd

def monomial_mul(A, B):
    (a0, a1, a2, a3, a4, a5,) = A
    (b0, b1, b2, b3, b4, b5,) = B
    return (a0 + b0, a1 + b1, a2 + b2, a3 + b3, a4 + b4, a5 + b5,)

BODIES['mul', 6] = monomial_mul

def monomial_pow(A, k):
    (a0, a1, a2, a3, a4, a5,) = A
    return (a0*k, a1*k, a2*k, a3*k, a4*k, a5*k,)

BODIES['pow', 6] = monomial_pow

def monomial_mulpow(A, B, k):
    (a0, a1, a2, a3, a4, a5,) = A
    (b0, b1, b2, b3, b4, b5,) = B
    return (a0 + b0*k, a1 + b1*k, a2 + b2*k, a3 + b3*k, a4 + b4*k, a5 + b5*k,)

BODIES['mulpow', 6] = monomial_mulpow

def monomial_ldiv(A, B):
    (a0, a1, a2, a3, a4, a5,) = A
    (b0, b1, b2, b3, b4, b5,) = B
    return (a0 - b0, a1 - b1, a2 - b2, a3 - b3, a4 - b4, a5 - b5,)

BODIES['ldiv', 6] = monomial_ldiv

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

BODIES['div', 6] = monomial_div

def monomial_lcm(A, B):
    (a0, a1, a2, a3, a4, a5,) = A
    (b0, b1, b2, b3, b4, b5,) = B
    return (a0 if a0 >= b0 else b0, a1 if a1 >= b1 else b1, a2 if a2 >= b2 else b2, a3 if a3 >= b3 else b3, a4 if a4 >= b4 else b4, a5 if a5 >= b5 else b5,)

BODIES['lcm', 6] = monomial_lcm

def monomial_gcd(A, B):
    (a0, a1, a2, a3, a4, a5,) = A
    (b0, b1, b2, b3, b4, b5,) = B
    return (a0 if a0 <= b0 else b0, a1 if a1 <= b1 else b1, a2 if a2 <= b2 else b2, a3 if a3 <= b3 else b3, a4 if a4 <= b4 else b4, a5 if a5 <= b5 else b5,)

BODIES['gcd', 6] = monomial_gcd

def monomial_mul(A, B):
    (a0, a1, a2, a3, a4, a5, a6,) = A
    (b0, b1, b2, b3, b4, b5, b6,) = B
    return (a0 + b0, a1 + b1, a2 + b2, a3 + b3, a4 + b4, a5 + b5, a6 + b6,)

BODIES['mul', 7] = monomial_mul

def monomial_pow(A, k):
    (a0, a1, a2, a3, a4, a5, a6,) = A
    return (a0*k, a1*k, a2*k, a3*k, a4*k, a5*k, a6*k,)

BODIES['pow', 7] = monomial_pow

def monomial_mulpow(A, B, k):
    (a0, a1, a2, a3, a4, a5, a6,) = A
    (b0, b1, b2, b3, b4, b5, b6,) = B
    return (a0 + b0*k, a1 + b1*k, a2 + b2*k, a3 + b3*k, a4 + b4*k, a5 + b5*k, a6 + b6*k,)

BODIES['mulpow', 7] = monomial_mulpow

def monomial_ldiv(A, B):
    (a0, a1, a2, a3, a4, a5, a6,) = A
    (b0, b1, b2, b3, b4, b5, b6,) = B
    return (a0 - b0, a1 - b1, a2 - b2, a3 - b3, a4 - b4, a5 - b5, a6 - b6,)

BODIES['ldiv', 7] = monomial_ldiv

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

BODIES['div', 7] = monomial_div

def monomial_lcm(A, B):
    (a0, a1, a2, a3, a4, a5, a6,) = A
    (b0, b1, b2, b3, b4, b5, b6,) = B
    return (a0 if a0 >= b0 else b0, a1 if a1 >= b1 else b1, a2 if a2 >= b2 else b2, a3 if a3 >= b3 else b3, a4 if a4 >= b4 else b4, a5 if a5 >= b5 else b5, a6 if a6 >= b6 else b6,)

BODIES['lcm', 7] = monomial_lcm

def monomial_gcd(A, B):
    (a0, a1, a2, a3, a4, a5, a6,) = A
    (b0, b1, b2, b3, b4, b5, b6,) = B
    return (a0 if a0 <= b0 else b0, a1 if a1 <= b1 else b1, a2 if a2 <= b2 else b2, a3 if a3 <= b3 else b3, a4 if a4 <= b4 else b4, a5 if a5 <= b5 else b5, a6 if a6 <= b6 else b6,)

BODIES['gcd', 7] = monomial_gcd

def monomial_mul(A, B):
    (a0, a1, a2, a3, a4, a5, a6, a7,) = A
    (b0, b1, b2, b3, b4, b5, b6, b7,) = B
    return (a0 + b0, a1 + b1, a2 + b2, a3 + b3, a4 + b4, a5 + b5, a6 + b6, a7 + b7,)

BODIES['mul', 8] = monomial_mul

def monomial_pow(A, k):
    (a0, a1, a2, a3, a4, a5, a6, a7,) = A
    return (a0*k, a1*k, a2*k, a3*k, a4*k, a5*k, a6*k, a7*k,)

BODIES['pow', 8] = monomial_pow

def monomial_mulpow(A, B, k):
    (a0, a1, a2, a3, a4, a5, a6, a7,) = A
    (b0, b1, b2, b3, b4, b5, b6, b7,) = B
    return (a0 + b0*k, a1 + b1*k, a2 + b2*k, a3 + b3*k, a4 + b4*k, a5 + b5*k, a6 + b6*k, a7 + b7*k,)

BODIES['mulpow', 8] = monomial_mulpow

def monomial_ldiv(A, B):
    (a0, a1, a2, a3, a4, a5, a6, a7,) = A
    (b0, b1, b2, b3, b4, b5, b6, b7,) = B
    return (a0 - b0, a1 - b1, a2 - b2, a3 - b3, a4 - b4, a5 - b5, a6 - b6, a7 - b7,)

BODIES['ldiv', 8] = monomial_ldiv

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

BODIES['div', 8] = monomial_div

def monomial_lcm(A, B):
    (a0, a1, a2, a3, a4, a5, a6, a7,) = A
    (b0, b1, b2, b3, b4, b5, b6, b7,) = B
    return (a0 if a0 >= b0 else b0, a1 if a1 >= b1 else b1, a2 if a2 >= b2 else b2, a3 if a3 >= b3 else b3, a4 if a4 >= b4 else b4, a5 if a5 >= b5 else b5, a6 if a6 >= b6 else b6, a7 if a7 >= b7 else b7,)

BODIES['lcm', 8] = monomial_lcm

def monomial_gcd(A, B):
    (a0, a1, a2, a3, a4, a5, a6, a7,) = A
    (b0, b1, b2, b3, b4, b5, b6, b7,) = B
    return (a0 if a0 <= b0 else b0, a1 if a1 <= b1 else b1, a2 if a2 <= b2 else b2, a3 if a3 <= b3 else b3, a4 if a4 <= b4 else b4, a5 if a5 <= b5 else b5, a6 if a6 <= b6 else b6, a7 if a7 <= b7 else b7,)

BODIES['gcd', 8] = monomial_gcd

def monomial_mul(A, B):
    (a0, a1, a2, a3, a4, a5, a6, a7, a8,) = A
    (b0, b1, b2, b3, b4, b5, b6, b7, b8,) = B
    return (a0 + b0, a1 + b1, a2 + b2, a3 + b3, a4 + b4, a5 + b5, a6 + b6, a7 + b7, a8 + b8,)

BODIES['mul', 9] = monomial_mul

def monomial_pow(A, k):
    (a0, a1, a2, a3, a4, a5, a6, a7, a8,) = A
    return (a0*k, a1*k, a2*k, a3*k, a4*k, a5*k, a6*k, a7*k, a8*k,)

BODIES['pow', 9] = monomial_pow

def monomial_mulpow(A, B, k):
    (a0, a1, a2, a3, a4, a5, a6, a7, a8,) = A
    (b0, b1, b2, b3, b4, b5, b6, b7, b8,) = B
    return (a0 + b0*k, a1 + b1*k, a2 + b2*k, a3 + b3*k, a4 + b4*k, a5 + b5*k, a6 + b6*k, a7 + b7*k, a8 + b8*k,)

BODIES['mulpow', 9] = monomial_mulpow

def monomial_ldiv(A, B):
    (a0, a1, a2, a3, a4, a5, a6, a7, a8,) = A
    (b0, b1, b2, b3, b4, b5, b6, b7, b8,) = B
    return (a0 - b0, a1 - b1, a2 - b2, a3 - b3, a4 - b4, a5 - b5, a6 - b6, a7 - b7, a8 - b8,)

BODIES['ldiv', 9] = monomial_ldiv

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

BODIES['div', 9] = monomial_div

def monomial_lcm(A, B):
    (a0, a1, a2, a3, a4, a5, a6, a7, a8,) = A
    (b0, b1, b2, b3, b4, b5, b6, b7, b8,) = B
    return (a0 if a0 >= b0 else b0, a1 if a1 >= b1 else b1, a2 if a2 >= b2 else b2, a3 if a3 >= b3 else b3, a4 if a4 >= b4 else b4, a5 if a5 >= b5 else b5, a6 if a6 >= b6 else b6, a7 if a7 >= b7 else b7, a8 if a8 >= b8 else b8,)

BODIES['lcm', 9] = monomial_lcm

def monomial_gcd(A, B):
    (a0, a1, a2, a3, a4, a5, a6, a7, a8,) = A
    (b0, b1, b2, b3, b4, b5, b6, b7, b8,) = B
    return (a0 if a0 <= b0 else b0, a1 if a1 <= b1 else b1, a2 if a2 <= b2 else b2, a3 if a3 <= b3 else b3, a4 if a4 <= b4 else b4, a5 if a5 <= b5 else b5, a6 if a6 <= b6 else b6, a7 if a7 <= b7 else b7, a8 if a8 <= b8 else b8,)

BODIES['gcd', 9] = monomial_gcd

def monomial_mul(A, B):
    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9,) = A
    (b0, b1, b2, b3, b4, b5, b6, b7, b8, b9,) = B
    return (a0 + b0, a1 + b1, a2 + b2, a3 + b3, a4 + b4, a5 + b5, a6 + b6, a7 + b7, a8 + b8, a9 + b9,)

BODIES['mul', 10] = monomial_mul

def monomial_pow(A, k):
    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9,) = A
    return (a0*k, a1*k, a2*k, a3*k, a4*k, a5*k, a6*k, a7*k, a8*k, a9*k,)

BODIES['pow', 10] = monomial_pow

def monomial_mulpow(A, B, k):
    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9,) = A
    (b0, b1, b2, b3, b4, b5, b6, b7, b8, b9,) = B
    return (a0 + b0*k, a1 + b1*k, a2 + b2*k, a3 + b3*k, a4 + b4*k, a5 + b5*k, a6 + b6*k, a7 + b7*k, a8 + b8*k, a9 + b9*k,)

BODIES['mulpow', 10] = monomial_mulpow

def monomial_ldiv(A, B):
    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9,) = A
    (b0, b1, b2, b3, b4, b5, b6, b7, b8, b9,) = B
    return (a0 - b0, a1 - b1, a2 - b2, a3 - b3, a4 - b4, a5 - b5, a6 - b6, a7 - b7, a8 - b8, a9 - b9,)

BODIES['ldiv', 10] = monomial_ldiv

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

BODIES['div', 10] = monomial_div

def monomial_lcm(A, B):
    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9,) = A
    (b0, b1, b2, b3, b4, b5, b6, b7, b8, b9,) = B
    return (a0 if a0 >= b0 else b0, a1 if a1 >= b1 else b1, a2 if a2 >= b2 else b2, a3 if a3 >= b3 else b3, a4 if a4 >= b4 else b4, a5 if a5 >= b5 else b5, a6 if a6 >= b6 else b6, a7 if a7 >= b7 else b7, a8 if a8 >= b8 else b8, a9 if a9 >= b9 else b9,)

BODIES['lcm', 10] = monomial_lcm

def monomial_gcd(A, B):
    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9,) = A
    (b0, b1, b2, b3, b4, b5, b6, b7, b8, b9,) = B
    return (a0 if a0 <= b0 else b0, a1 if a1 <= b1 else b1, a2 if a2 <= b2 else b2, a3 if a3 <= b3 else b3, a4 if a4 <= b4 else b4, a5 if a5 <= b5 else b5, a6 if a6 <= b6 else b6, a7 if a7 <= b7 else b7, a8 if a8 <= b8 else b8, a9 if a9 <= b9 else b9,)

BODIES['gcd', 10] = monomial_gcd

def monomial_mul(A, B):
    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10,) = A
    (b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10,) = B
    return (a0 + b0, a1 + b1, a2 + b2, a3 + b3, a4 + b4, a5 + b5, a6 + b6, a7 + b7, a8 + b8, a9 + b9, a10 + b10,)

BODIES['mul', 11] = monomial_mul

def monomial_pow(A, k):
    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10,) = A
    return (a0*k, a1*k, a2*k, a3*k, a4*k, a5*k, a6*k, a7*k, a8*k, a9*k, a10*k,)

BODIES['pow', 11] = monomial_pow

def monomial_mulpow(A, B, k):
    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10,) = A
    (b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10,) = B
    return (a0 + b0*k, a1 + b1*k, a2 + b2*k, a3 + b3*k, a4 + b4*k, a5 + b5*k, a6 + b6*k, a7 + b7*k, a8 + b8*k, a9 + b9*k, a10 + b10*k,)

BODIES['mulpow', 11] = monomial_mulpow

def monomial_ldiv(A, B):
    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10,) = A
    (b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10,) = B
    return (a0 - b0, a1 - b1, a2 - b2, a3 - b3, a4 - b4, a5 - b5, a6 - b6, a7 - b7, a8 - b8, a9 - b9, a10 - b10,)

BODIES['ldiv', 11] = monomial_ldiv

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

BODIES['div', 11] = monomial_div

def monomial_lcm(A, B):
    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10,) = A
    (b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10,) = B
    return (a0 if a0 >= b0 else b0, a1 if a1 >= b1 else b1, a2 if a2 >= b2 else b2, a3 if a3 >= b3 else b3, a4 if a4 >= b4 else b4, a5 if a5 >= b5 else b5, a6 if a6 >= b6 else b6, a7 if a7 >= b7 else b7, a8 if a8 >= b8 else b8, a9 if a9 >= b9 else b9, a10 if a10 >= b10 else b10,)

BODIES['lcm', 11] = monomial_lcm

def monomial_gcd(A, B):
    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10,) = A
    (b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10,) = B
    return (a0 if a0 <= b0 else b0, a1 if a1 <= b1 else b1, a2 if a2 <= b2 else b2, a3 if a3 <= b3 else b3, a4 if a4 <= b4 else b4, a5 if a5 <= b5 else b5, a6 if a6 <= b6 else b6, a7 if a7 <= b7 else b7, a8 if a8 <= b8 else b8, a9 if a9 <= b9 else b9, a10 if a10 <= b10 else b10,)

BODIES['gcd', 11] = monomial_gcd

def monomial_mul(A, B):
    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11,) = A
    (b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11,) = B
    return (a0 + b0, a1 + b1, a2 + b2, a3 + b3, a4 + b4, a5 + b5, a6 + b6, a7 + b7, a8 + b8, a9 + b9, a10 + b10, a11 + b11,)

BODIES['mul', 12] = monomial_mul

def monomial_pow(A, k):
    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11,) = A
    return (a0*k, a1*k, a2*k, a3*k, a4*k, a5*k, a6*k, a7*k, a8*k, a9*k, a10*k, a11*k,)

BODIES['pow', 12] = monomial_pow

def monomial_mulpow(A, B, k):
    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11,) = A
    (b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11,) = B
    return (a0 + b0*k, a1 + b1*k, a2 + b2*k, a3 + b3*k, a4 + b4*k, a5 + b5*k, a6 + b6*k, a7 + b7*k, a8 + b8*k, a9 + b9*k, a10 + b10*k, a11 + b11*k,)

BODIES['mulpow', 12] = monomial_mulpow

def monomial_ldiv(A, B):
    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11,) = A
    (b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11,) = B
    return (a0 - b0, a1 - b1, a2 - b2, a3 - b3, a4 - b4, a5 - b5, a6 - b6, a7 - b7, a8 - b8, a9 - b9, a10 - b10, a11 - b11,)

BODIES['ldiv', 12] = monomial_ldiv

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

BODIES['div', 12] = monomial_div

def monomial_lcm(A, B):
    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11,) = A
    (b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11,) = B
    return (a0 if a0 >= b0 else b0, a1 if a1 >= b1 else b1, a2 if a2 >= b2 else b2, a3 if a3 >= b3 else b3, a4 if a4 >= b4 else b4, a5 if a5 >= b5 else b5, a6 if a6 >= b6 else b6, a7 if a7 >= b7 else b7, a8 if a8 >= b8 else b8, a9 if a9 >= b9 else b9, a10 if a10 >= b10 else b10, a11 if a11 >= b11 else b11,)

BODIES['lcm', 12] = monomial_lcm

def monomial_gcd(A, B):
    (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11,) = A
    (b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11,) = B
    return (a0 if a0 <= b0 else b0, a1 if a1 <= b1 else b1, a2 if a2 <= b2 else b2, a3 if a3 <= b3 else b3, a4 if a4 <= b4 else b4, a5 if a5 <= b5 else b5, a6 if a6 <= b6 else b6, a7 if a7 <= b7 else b7, a8 if a8 <= b8 else b8, a9 if a9 <= b9 else b9, a10 if a10 <= b10 else b10, a11 if a11 <= b11 else b11,)

BODIES['gcd', 12] = monomial_gcd
