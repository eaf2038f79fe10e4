"""rlx.sample on the CPU against a NumPy implementation of the op's
description, including a NumPy Philox-4x32-10.

The NumPy Philox is first checked against known-answer vectors of the
Random123 distribution (kat_vectors, philox4x32 with 10 rounds; counter
words then key words -> output words):

  ctr 00000000 00000000 00000000 00000000, key 00000000 00000000
      -> 6627e8d5 e169c58d bc57ac4c 9b00dbd8
  ctr ffffffff ffffffff ffffffff ffffffff, key ffffffff ffffffff
      -> 408f276d 41c83b0e a20bc7c6 6d5451fd
  ctr 243f6a88 85a308d3 13198a2e 03707344, key a4093822 299f31d0
      -> d16cfe09 94fdcceb 5001e420 24126ea1

Covered: f32, f64 and f16 logits; seeds 0 (= 0xDEADBEEF, checked against
seed 3735928559), small, large and negative (the i64 bit pattern);
temperatures 0.5, 1 and 2.5; top_k 0, 1 (greedy), 5 and vocab; top_p 1,
0.9 and 0.3 and combinations; rows with tied logits (ties by smaller id in
both the top_k and the top_p order); batch 1 and 6; vocab 1, 7, 1000 and
50257 (a GPT-2 sized row, which must run in reasonable time); that a row's
id does not depend on the batch it is in.

Tolerances: ids must be equal. The oracle repeats the description's
arithmetic in the compute type (f32 for f16/f32, f64 for f64), but the CPU
computes exp with a polynomial, so the sums may differ in the last bits:
a differing id is accepted only when the oracle's u, or top_p, lies
within 1e-5 (f32) / 1e-12 (f64) of the cumulative sum that decides it.
"""

import sys

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 3)[0] + "/Execution/lib")
from rlxcheck import Checker, tensor_type  # noqa: E402

check = Checker(sys.argv[1])
M0, M1, W0, W1 = 0xD2511F53, 0xCD9E8D57, 0x9E3779B9, 0xBB67AE85
MASK = 0xFFFFFFFF


def philox4x32_10(ctr, key):
    c0, c1, c2, c3 = ctr
    k0, k1 = key
    for _ in range(10):
        p0, p1 = M0 * c0, M1 * c2
        c0, c1, c2, c3 = ((p1 >> 32) ^ c1 ^ k0, p1 & MASK,
                          (p0 >> 32) ^ c3 ^ k1, p0 & MASK)
        k0, k1 = (k0 + W0) & MASK, (k1 + W1) & MASK
    return c0, c1, c2, c3


KAT = [((0, 0, 0, 0), (0, 0),
        (0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8)),
       ((MASK,) * 4, (MASK, MASK),
        (0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd)),
       ((0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344),
        (0xa4093822, 0x299f31d0),
        (0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1))]
for ctr, key, want in KAT:
    check.cases += 1
    if philox4x32_10(ctr, key) == want:
        check.passed += 1
    else:
        check.failed += 1
        print(f"FAIL NumPy Philox known answer {ctr} {key}")


def uniform(seed, row):
    bits = (seed & ((1 << 64) - 1)) or 0xDEADBEEF
    return philox4x32_10((row, 0, 0, 0), (bits & MASK, bits >> 32))[0] * 2.0**-32


def reference(logits, top_k, top_p, temperature, seed, row, ct, slack):
    """The drawn id, and the ids accepted within `slack` of a boundary."""
    vocab = logits.shape[0]
    z = logits.astype(ct) / ct(temperature)
    ids = np.arange(vocab)
    by_z = np.lexsort((ids, -z))
    kept = by_z[:top_k] if top_k else by_z
    e = np.exp(z[kept] - z[kept[0]])
    total = ct(0)
    for v in e:
        total = ct(total + v)
    p = np.zeros(vocab, ct)
    p[kept] = e / total
    order = kept[np.lexsort((kept, -p[kept]))]
    accepted = set()
    prefixes = [len(order)]
    mass = ct(1)
    if top_p < 1:
        cum = np.cumsum(p[order], dtype=ct)
        hits = np.nonzero(cum >= ct(top_p))[0]
        n = hits[0] + 1 if len(hits) else len(order)
        mass = cum[n - 1]
        prefixes = [n]
        near = np.nonzero(np.abs(cum - top_p) <= slack)[0]
        prefixes += [q + 1 for q in near]
    u = uniform(seed, row)
    drawn = None
    for n in prefixes:
        m = mass if n == prefixes[0] else np.cumsum(p[order], dtype=ct)[n - 1]
        cum = np.cumsum(p[order[:n]] / m, dtype=ct).astype(np.float64)
        hits = np.nonzero(cum > u)[0]
        q = hits[0] if len(hits) else n - 1
        if drawn is None:
            drawn = order[q]
        accepted.add(order[q])
        for near in np.nonzero(np.abs(cum - u) <= slack)[0]:
            accepted.update(order[max(near - 1, 0):near + 2])
    return drawn, accepted


def run_sample(logits, top_k, top_p, temperature, seed):
    t = tensor_type(logits.shape, logits.dtype)
    rows = logits.shape[0]
    mlir = f"""
func.func @g(%x: {t} {{rlx.input = "x"}}) -> tensor<{rows}xi64> {{
  %s = rlx.sample %x {{top_k = {top_k} : i64, top_p = {top_p} : f32,
      temperature = {temperature} : f32, seed = {seed} : i64}} : {t}
  return %s : tensor<{rows}xi64>
}}"""
    out = check.run(mlir, {"x": logits})
    return out and out[0]


def check_sample(logits, top_k=0, top_p=1.0, temperature=1.0, seed=7):
    got = run_sample(logits, top_k, top_p, temperature, seed)
    ct = np.float64 if logits.dtype == np.float64 else np.float32
    slack = 1e-12 if ct == np.float64 else 1e-5
    top_p32 = float(np.float32(top_p))
    temp32 = float(np.float32(temperature))
    what = (f"sample {logits.dtype} {logits.shape} top_k={top_k} "
            f"top_p={top_p} T={temperature} seed={seed}")
    want = np.zeros(logits.shape[0], np.int64)
    ok = got is not None and got.shape == want.shape
    for row in range(logits.shape[0]):
        drawn, accepted = reference(logits[row], top_k, top_p32, temp32,
                                    seed, row, ct, slack)
        want[row] = drawn
        if ok and got[row] != drawn:
            if got[row] in accepted:
                print(f"note {what} row {row}: id {got[row]} instead of "
                      f"{drawn}, within rounding of a boundary")
                want[row] = got[row]
            else:
                print(f"row {row}: got {got[row]} want {drawn}")
    check.close(what, got, want, 0, 0)
    return got


for dtype in [np.float32, np.float64]:
    x = check.uniform((6, 1000), dtype, -4, 4)
    for seed in [0, 1, 123456789, -5, 2**62 + 12345]:
        check_sample(x, seed=seed)
    for temperature in [0.5, 2.5]:
        check_sample(x, temperature=temperature, seed=3)
    for top_k in [1, 5, 1000]:
        check_sample(x, top_k=top_k, seed=11)
    for top_p in [0.9, 0.3]:
        check_sample(x, top_p=top_p, seed=13)
        check_sample(x, top_k=20, top_p=top_p, temperature=0.7, seed=17)

# seed 0 is the key 0xDEADBEEF, not fresh randomness.
x = check.uniform((6, 1000), np.float32, -1, 1)
check.close("sample seed 0 == seed 0xDEADBEEF", run_sample(x, 0, 1.0, 1.0, 0),
            run_sample(x, 0, 1.0, 1.0, 0xDEADBEEF), 0, 0)

# Ties: few distinct logits, so the top_k cut and the top_p order both
# fall inside runs of equal values (decided by the smaller id).
ties = check.integers((6, 40), np.float32, 0, 4)
for top_k, top_p in [(3, 1.0), (7, 1.0), (1, 1.0), (0, 0.5), (10, 0.3),
                     (0, 0.05)]:
    for seed in [2, 99]:
        check_sample(ties, top_k=top_k, top_p=top_p, seed=seed)

# Half precision logits are sampled in f32.
check_sample(check.uniform((3, 100), np.float16, -3, 3), top_p=0.8, seed=5)

# Vocab of 1 and 7, batch 1.
check_sample(check.uniform((1, 1), np.float32), seed=4)
check_sample(check.uniform((1, 7), np.float32), top_k=7, top_p=0.6, seed=4)

# A row's id does not depend on the other rows.
x = check.uniform((6, 300), np.float32, -2, 2)
full = run_sample(x, 0, 0.9, 1.0, 21)
check.close("sample rows independent of the batch", full[:4] if full is not
            None else None, run_sample(x[:4], 0, 0.9, 1.0, 21), 0, 0)

# A GPT-2 sized vocabulary.
check_sample(check.uniform((2, 50257), np.float32, -8, 8), top_k=50,
             top_p=0.95, temperature=0.8, seed=31)
check_sample(check.uniform((2, 50257), np.float32, -8, 8), seed=32)

check.finish()
