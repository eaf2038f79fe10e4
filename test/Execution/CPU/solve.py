"""rlx.dense_solve and rlx.batched_dense_solve on the CPU (pivoted LU in
scf loops) against numpy.linalg.solve in float64.

Covered: f32, f64 and f16; N = 1, 2, 5, 16, 33; one right-hand side ([N])
and several ([N, K], K = 1, 3); batched with B = 1 and 4. The matrices are
random with entries in [-1, 1) plus a random row permutation of 2N * I
(diagonally dominant after permuting, so condition numbers stay small
while the solver must pivot); one case has a zero leading entry that
forces a row swap.

Tolerances: the error bound of a backward-stable solve is about
cond(A) * eps; the check uses rtol = atol = 50 * cond(A) * eps of the
dtype (cond(A) computed per case and printed on failure), against the
float64 solution of the same rounded inputs.
"""

import sys

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 3)[0] + "/Execution/lib")
from rlxcheck import Checker, tensor_type  # noqa: E402

check = Checker(sys.argv[1])


def matrix(n, dtype):
    """Well-conditioned, but its largest entries are off the diagonal."""
    a = check.uniform((n, n), np.float64)
    a[np.arange(n), check.rng.permutation(n)] += 2 * n
    return a.astype(dtype)


def check_solve(dtype, n, rhs, batch=None):
    lead = () if batch is None else (batch,)
    a = np.stack([matrix(n, dtype) for _ in range(batch or 1)])
    a = a.reshape(lead + (n, n))
    b = check.uniform(lead + (n,) + rhs, dtype)
    ta, tb = tensor_type(a.shape, dtype), tensor_type(b.shape, dtype)
    op = "batched_dense_solve" if batch else "dense_solve"
    mlir = f"""
func.func @g(%a: {ta} {{rlx.input = "a"}}, %b: {tb} {{rlx.input = "b"}})
    -> {tb} {{
  %x = rlx.{op} %a, %b : {ta}, {tb}
  return %x : {tb}
}}"""
    out = check.run(mlir, {"a": a, "b": b})
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    vector = not rhs
    if vector:
        b64 = b64[..., None]
    want = np.linalg.solve(a64, b64)
    if vector:
        want = want[..., 0]
    cond = np.linalg.cond(a64).max()
    tol = 50 * cond * np.finfo(dtype).eps
    check.close(f"{op} {np.dtype(dtype)} a {a.shape} b {b.shape} "
                f"(cond {cond:.3g})", out and out[0], want.astype(dtype),
                tol, tol)


for dtype in [np.float32, np.float64]:
    for n in [1, 2, 5, 16, 33]:
        check_solve(dtype, n, ())
        check_solve(dtype, n, (3,))
    check_solve(dtype, 4, (1,))
    for batch in [1, 4]:
        check_solve(dtype, 7, (), batch)
        check_solve(dtype, 7, (2,), batch)
check_solve(np.float16, 4, (2,))
check_solve(np.float16, 3, (), 2)

t3, tm = tensor_type((3,), np.float64), tensor_type((3, 3), np.float64)


def solve3(a, b):
    """rlx.dense_solve of a 3x3 f64 system."""
    return check.run(f"""
func.func @g(%a: {tm} {{rlx.input = "a"}}, %b: {t3} {{rlx.input = "b"}})
    -> {t3} {{
  %x = rlx.dense_solve %a, %b : {tm}, {t3}
  return %x : {t3}
}}""", {"a": a, "b": b})

# A zero in the top-left corner: without a row swap the first pivot is 0.
a = np.array([[0, 2, 1], [3, 1, 0], [1, 0, 4]], np.float64)
b = check.uniform((3,), np.float64)
out = solve3(a, b)
check.close("dense_solve zero leading pivot", out and out[0],
            np.linalg.solve(a, b), 1e-12, 1e-12)

# A singular A (its second column is zero, so a pivot is exactly 0) is
# not reported, as the op documents: elimination divides by the zero pivot
# and the result holds inf or NaN.
a = np.array([[1, 0, 2], [3, 0, 4], [5, 0, 6]], np.float64)
out = solve3(a, b)
got = out[0] if out else None
not_finite = got is not None and not np.isfinite(got).all()
check.close("dense_solve singular A gives inf or NaN",
            np.array(not_finite), np.array(True), 0, 0)

check.finish()
