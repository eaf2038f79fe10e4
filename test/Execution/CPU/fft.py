"""rlx.fft, fft_butterfly_stage, log_mel, log_mel_backward, complex_norm_sq
and conjugate on the CPU against NumPy and PyTorch (float64 oracles).

rlx.fft: forward and inverse, every norm mode (RLX's: `backward` scales
neither direction, `forward` scales the inverse by 1/N, `ortho` both by
1/sqrt(N)), power-of-two lengths (radix-2), other lengths up to 16 (a DFT
against a twiddle table) and longer ones (Bluestein's FFT through radix-2
FFTs of length M, the power of two >= 2N - 1), lengths 1, 2, primes (7, 17,
97, 1009) and odd composites (9, 15, 21, 255), no / one / two batch dims,
the f32 and f64 real-block layouts and complex<f32>, and a dynamic transform
length (`?` last axis: radix-2 where N is a power of two at run time,
Bluestein's FFT for every other N). The error of each row is
measured normwise (an FFT error bound is a normwise one: single entries of
the result can be arbitrarily small):
  ||got - want||_2 / ||want||_2 per row
  f32: radix-2 (powers of two) rounds once per stage, so the error grows
       like eps * log2(N); the DFT (lengths up to 16) sums N products,
       which grows like eps * sqrt(N) for random rounding; Bluestein's FFT
       runs three radix-2 FFTs of length M and chirp products, so its error
       grows like eps * log2(M). The bound is 6e-7 * (log2(N) + 1),
       6e-7 * (sqrt(N) + 1) resp. 6e-7 * (log2(M) + 1), about 5 f32 ulps
       per stage or per sqrt(N) terms (6.6e-6 at N = 1024, 7.2e-6 at
       N = 1009, M = 2048); measured: at most about 2.5e-7 (N = 1009,
       Bluestein, about 0.2 ulp per stage), 1.2e-7 at N = 1024,
  f64: the same form with 1.2e-15 (measured: at most 1e-15 at N = 1009).
Butterfly stages: f32 rtol/atol 1e-6 (one complex multiply-add per entry);
log_mel: f32 rtol/atol 1e-5 on O(1) outputs (log10 of an f32 sum), f64
1e-12; log_mel_backward against torch.autograd of log_mel in float64 with
the max - 8 threshold detached (the op propagates only through unclamped
entries): f32 rtol 1e-4 / atol 1e-6 relative to max |want| (1/mel
amplifies the f32 rounding of the mel sum), f64 1e-10; complex_norm_sq and
conjugate rtol 1e-6 / exactly.
"""

import sys

import numpy as np
import torch

sys.path.insert(0, __file__.rsplit("/", 3)[0] + "/Execution/lib")
from rlxcheck import Checker, tensor_type  # noqa: E402

check = Checker(sys.argv[1])

NORMS = ("backward", "forward", "ortho")
FFT_TOL = {np.float32: 6e-7, np.float64: 1.2e-15, np.complex64: 6e-7}


def fft_oracle(z, inverse, norm):
    """RLX fft of complex128 rows `z` (last axis)."""
    n = z.shape[-1]
    out = n * np.fft.ifft(z, axis=-1) if inverse else np.fft.fft(z, axis=-1)
    if norm == "ortho":
        out = out / np.sqrt(n)
    elif norm == "forward" and inverse:
        out = out / n
    return out


def to_complex(x, dtype):
    if dtype == np.complex64:
        return x.astype(np.complex128)
    n = x.shape[-1] // 2
    return x[..., :n].astype(np.float64) + 1j * x[..., n:].astype(np.float64)


def fft_graph(shape, dtype, dynamic=False):
    t = tensor_type(shape[:-1] + ("?",) if dynamic else shape, dtype)
    lines, results = [], []
    for inverse in (False, True):
        for norm in NORMS:
            i = len(results)
            inv = "inverse " if inverse else ""
            lines.append(f"  %{i} = rlx.fft {inv}%x {{norm = #rlx.fft_norm<{norm}>}} : {t}")
            results.append(f"%{i}")
    types = ", ".join([t] * len(results))
    return (f"func.func @main(%x: {t} {{rlx.input = \"x\"}}) -> ({types}) {{\n"
            + "\n".join(lines) + f"\n  return {', '.join(results)} : {types}\n}}")


# Lengths up to this one that are not powers of two take the direct DFT;
# longer ones Bluestein's FFT (as the CPU lowering chooses).
MAX_DIRECT_DFT = 16


def fft_tolerance(n, dtype, dynamic=False):
    """Radix-2 (powers of two) rounds once per stage, the DFT sums n
    products, Bluestein's FFT runs radix-2 FFTs of length M >= 2n - 1 (for
    every length that is not a power of two when the length is dynamic)."""
    if n & (n - 1) == 0:
        growth = np.log2(n)
    elif n <= MAX_DIRECT_DFT and not dynamic:
        growth = np.sqrt(n)
    else:
        growth = np.log2(1 << int(2 * n - 2).bit_length())
    return FFT_TOL[dtype] * (growth + 1)


def check_fft(batch, n, dtype, dynamic=False):
    shape = batch + ((n,) if dtype == np.complex64 else (2 * n,))
    x = check.uniform(shape, dtype)
    outs = check.run(fft_graph(shape, dtype, dynamic), {"x": x})
    k = 0
    for inverse in (False, True):
        for norm in NORMS:
            what = (f"fft {dtype.__name__} {shape}{' (?)' if dynamic else ''} "
                    f"N={n} inverse={inverse} {norm}")
            want = fft_oracle(to_complex(x, dtype), inverse, norm)
            got = None if outs is None else outs[k]
            k += 1
            if got is not None and got.shape == x.shape and got.dtype == x.dtype:
                err = np.linalg.norm(to_complex(got, dtype) - want, axis=-1)
                # Normwise relative error of each row.
                got = err / np.linalg.norm(want, axis=-1)
            check.close(what, got, np.zeros(batch), 0,
                        fft_tolerance(n, dtype, dynamic))


for dtype in (np.float32, np.float64, np.complex64):
    for n in (1, 2, 3, 4, 5, 7, 8, 9, 12, 15, 16, 17, 21, 64, 97, 255, 256,
              1009, 1024):
        check_fft((3,), n, dtype)
    check_fft((), 32, dtype)
    check_fft((), 13, dtype)
    check_fft((2, 3), 8, dtype)
    check_fft((2, 3), 6, dtype)
    check_fft((2, 3), 33, dtype)
    # A `?` transform length: the same graph at every length.
    for n in (1, 2, 3, 4, 5, 8, 12, 17, 64, 97, 255, 256, 1009, 1024):
        check_fft((3,), n, dtype, dynamic=True)
    check_fft((2, 3), 6, dtype, dynamic=True)


# Butterfly stages against the definition, every stage of n_fft = 16 and
# n_fft = 2, with random gates, reversals and twiddles.
def butterfly_oracle(state, gate, rev, twr, twi, stage):
    s = state.astype(np.float64)
    out = s.copy()
    stride = 1 << stage
    for j in range(len(gate)):
        if not gate[j]:
            continue
        i0 = (j // stride) * 2 * stride + j % stride
        i1 = i0 + stride
        a = s[:, i0, 0] + 1j * s[:, i0, 1]
        t = (s[:, i1, 0] + 1j * s[:, i1, 1]) * (float(twr[j]) + 1j * float(twi[j]))
        lo, hi = a + t, a - t
        if rev[j]:
            lo, hi = hi, lo
        out[:, i0, 0], out[:, i0, 1] = lo.real, lo.imag
        out[:, i1, 0], out[:, i1, 1] = hi.real, hi.imag
    return out


for dtype, tol in ((np.float32, 1e-6), (np.float64, 1e-14)):
    for n_fft in (2, 16):
        for stage in range(int(np.log2(n_fft))):
            half = n_fft // 2
            st = tensor_type((3, n_fft, 2), dtype)
            bt = tensor_type((half,), np.bool_)
            tt = tensor_type((half,), dtype)
            graph = (f"func.func @main(%s: {st} {{rlx.input = \"s\"}}, %g: {bt} {{rlx.input = \"g\"}}, "
                     f"%r: {bt} {{rlx.input = \"r\"}}, %wr: {tt} {{rlx.input = \"wr\"}}, "
                     f"%wi: {tt} {{rlx.input = \"wi\"}}) -> {st} {{\n"
                     f"  %0 = rlx.fft_butterfly_stage %s, %g, %r, %wr, %wi stage = {stage} "
                     f"n_fft = {n_fft} : {st}, {bt}, {tt}\n  return %0 : {st}\n}}")
            inputs = {"s": check.uniform((3, n_fft, 2), dtype),
                      "g": check.integers((half,), np.bool_, 0, 2),
                      "r": check.integers((half,), np.bool_, 0, 2),
                      "wr": check.uniform((half,), dtype),
                      "wi": check.uniform((half,), dtype)}
            if n_fft == 2:
                inputs["g"][:] = True
            got = check.run(graph, inputs)
            want = butterfly_oracle(inputs["s"], inputs["g"], inputs["r"],
                                    inputs["wr"], inputs["wi"], stage)
            check.close(f"butterfly {dtype.__name__} n_fft={n_fft} stage={stage}",
                        got and got[0], want.astype(dtype), tol, tol)


def log_mel_torch(spec, fb):
    n = spec.shape[-1] // 2
    bins = n // 2 + 1
    power = spec[..., :bins] ** 2 + spec[..., n:n + bins] ** 2
    mel = power @ fb.T
    logs = torch.log10(torch.clamp(mel, min=1e-10))
    logs = torch.maximum(logs, logs.max().detach() - 8.0)
    return (logs + 4.0) / 4.0


def log_mel_graphs(spec_shape, fb_shape, dtype, dynamic=False):
    """With `dynamic`, the spectrum's last axis and the filterbank's bins
    are `?`."""
    st = tensor_type(spec_shape[:-1] + ("?",) if dynamic else spec_shape,
                     dtype)
    ft = tensor_type((fb_shape[0], "?") if dynamic else fb_shape, dtype)
    yt = tensor_type(spec_shape[:-1] + (fb_shape[0],), dtype)
    fwd = (f"func.func @main(%s: {st} {{rlx.input = \"s\"}}, %f: {ft} {{rlx.input = \"f\"}}) -> {yt} {{\n"
           f"  %0 = rlx.log_mel %s, %f : {st}, {ft}\n  return %0 : {yt}\n}}")
    bwd = (f"func.func @main(%s: {st} {{rlx.input = \"s\"}}, %f: {ft} {{rlx.input = \"f\"}}, "
           f"%d: {yt} {{rlx.input = \"d\"}}) -> {st} {{\n"
           f"  %0 = rlx.log_mel_backward %s, %f, %d : {st}, {ft}, {yt}\n  return %0 : {st}\n}}")
    return fwd, bwd


# Spectra spread over many decades, so that some entries are clamped at
# max - 8 (and, with zeroed rows, at the 1e-10 floor).
for dtype, (ftol, btol, batol) in ((np.float32, (1e-5, 1e-4, 1e-6)),
                                   (np.float64, (1e-12, 1e-10, 1e-12))):
    for batch, n_fft, n_mels, dynamic in (
            ((5,), 16, 4, False), ((2, 3), 9, 3, False), ((7,), 1, 2, False),
            ((4,), 400, 80, False), ((5,), 16, 4, True), ((2, 3), 9, 3, True),
            ((7,), 1, 2, True), ((4,), 400, 80, True)):
        bins = n_fft // 2 + 1
        spec_shape = batch + (2 * n_fft,)
        spec = check.uniform(spec_shape, dtype) * \
            (10.0 ** check.uniform(batch + (1,), np.float64, -6, 1)).astype(dtype)
        spec[(0,) * (len(batch) - 1) + (0,)] = 0
        fb = check.uniform((n_mels, bins), dtype, 0, 1)
        dy = check.uniform(batch + (n_mels,), dtype)
        fwd, bwd = log_mel_graphs(spec_shape, fb.shape, dtype, dynamic)
        s = torch.tensor(spec.astype(np.float64), requires_grad=True)
        y = log_mel_torch(s, torch.tensor(fb.astype(np.float64)))
        (y * torch.tensor(dy.astype(np.float64))).sum().backward()
        what = (f"{dtype.__name__} {spec_shape}{' (?)' if dynamic else ''} "
                f"mels={n_mels}")
        got = check.run(fwd, {"s": spec, "f": fb})
        check.close(f"log_mel {what}", got and got[0],
                    y.detach().numpy().astype(dtype), ftol, ftol)
        want = s.grad.numpy()
        got = check.run(bwd, {"s": spec, "f": fb, "d": dy})
        scale = np.abs(want).max()
        check.close(f"log_mel_backward {what}",
                    None if got is None else got[0] / dtype(scale),
                    (want / scale).astype(dtype), btol, batol)

# complex_norm_sq and conjugate.
for shape in ((4, 8), (1,), (3, 1, 5)):
    ct = tensor_type(shape, np.complex64)
    rt = tensor_type(shape, np.float32)
    graph = (f"func.func @main(%z: {ct} {{rlx.input = \"z\"}}) -> ({rt}, {ct}) {{\n"
             f"  %0 = rlx.complex_norm_sq %z : {ct}\n"
             f"  %1 = rlx.conjugate %z : {ct}\n  return %0, %1 : {rt}, {ct}\n}}")
    z = check.uniform(shape, np.complex64, -3, 3)
    got = check.run(graph, {"z": z})
    want = z.real.astype(np.float64) ** 2 + z.imag.astype(np.float64) ** 2
    check.close(f"complex_norm_sq {shape}", got and got[0],
                want.astype(np.float32), 1e-6, 0)
    check.close(f"conjugate {shape}", got and got[1], np.conj(z), 0, 0)

check.finish()
