"""Data-parallel training under mpirun against one rank on the whole batch.

  data-parallel.py "MPIRUN" RLX_OPT RLX_RUN EXAMPLES

For each case the reference is one process training the graph of the whole
batch:

    rlx-opt G_B.mlir --rlx-autodiff="func=f optimizer=..." \\
      | rlx-run - --steps S --params init.safetensors --input x=x.npy ...

and the data-parallel run is the graph of the per-rank batch B / N,
differentiated with data-parallel=N (its gradients and loss all-reduced),
compiled once into a library and run by N ranks on the same files:

    mpirun -np N rlx-run --load step.so --data-parallel --steps S \\
      --params init.safetensors --input x=x.npy ... --output out.{rank}/

Each rank takes its slice of dim 0 of every input. Checked: the printed
losses step by step (the global loss, printed by rank 0 only) and the
parameters and optimizer state after S steps (every rank's, so the replicas
are checked to be bit for bit the same) against the reference, within
rtol 1e-5 and atol 1e-6 for the losses and 2e-5 + 1e-5 |ref| for the
parameters. Not exact: each gradient element is summed in a different order
(within each rank's slice, then across the ranks, where one rank sums the
whole batch at once), which changes its last bits, and a few ulps of change
per step compound over the steps (Adam's update normalizes the gradient,
so a relative change of a small gradient is a change of up to lr in the
step; measured differences are below 1e-7).

Cases: examples/mlp_train.mlir (B=16) with SGD + momentum on a different
batch per step (--batched) and with Adam (the gradients in one bucket), a
sum loss with gradient-reduction=sum and bucket-mb=0 (one all-reduce per
gradient), examples/transformer_train.mlir at batch 4 (its batch and token
dims rewritten) with Adam; 2 ranks and 4 (oversubscribed on 2 cores). And
the errors: a batch that does not split into equal slices, a file that is
not N times the graph's batch.
"""

import concurrent.futures
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

import numpy as np

# Beside this file when copied to a GPU machine, else the source tree's.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, __file__.rsplit("/", 3)[0] + "/Execution/lib")
sys.path.insert(0, __file__.rsplit("/", 4)[0] + "/scripts")
from rlxcheck import read_safetensors, write_safetensors  # noqa: E402
from train_inputs import example_inputs  # noqa: E402

# Besides the lit test's mode above, the same cases on GPUs (NCCL), for
# scripts/gpu-distributed-check.sh:
#   data-parallel.py --emit-cuda OUT RLX_OPT RLX_RUN EXAMPLES N
#       compiles the Adam cases for the cuda target, for one GPU and for N,
#       with their inputs, into OUT (cases.json lists them);
#   data-parallel.py --run-cuda OUT RLX_RUN_AOT
#       on N GPUs: the reference on one, `rlx-run-aot --ranks N` on N.
MODE = sys.argv[1] if sys.argv[1] in ("--emit-cuda", "--run-cuda") else "mpi"
TARGET = []
if MODE == "mpi":
    mpirun = shlex.split(sys.argv[1])
    RLX_OPT, RLX_RUN, EXAMPLES = sys.argv[2], sys.argv[3], sys.argv[4]
    tmp = tempfile.mkdtemp(prefix="rlx-data-parallel-")
elif MODE == "--emit-cuda":
    RLX_OPT, RLX_RUN, EXAMPLES = sys.argv[3], sys.argv[4], sys.argv[5]
    GPUS = int(sys.argv[6])
    TARGET = ["--target", "cuda"]
    os.makedirs(sys.argv[2], exist_ok=True)
    RLX_OPT, RLX_RUN, EXAMPLES = (os.path.abspath(p)
                                  for p in (RLX_OPT, RLX_RUN, EXAMPLES))
    os.chdir(sys.argv[2])
    tmp = "."
else:
    RLX_RUN = os.path.abspath(sys.argv[3])
    os.chdir(sys.argv[2])
STEPS = 8
LOSS_RTOL, LOSS_ATOL = 1e-5, 1e-6
PARAM_RTOL, PARAM_ATOL = 1e-5, 2e-5
rng = np.random.default_rng(11)


def launch(n):
    """The command that starts `n` ranks of the runner."""
    if MODE == "mpi":
        return mpirun + ["-np", str(n), RLX_RUN]
    return [RLX_RUN, "--ranks", str(n)]


def read(name):
    with open(os.path.join(EXAMPLES, name + ".mlir")) as f:
        return f.read()


def replace_all(text, pairs):
    for old, new in pairs:
        assert old in text, old
        text = text.replace(old, new)
    return text


def mlp_graph(batch, loss="mean"):
    """examples/mlp_train.mlir at batch `batch` (16 is the example's)."""
    text = read("mlp_train")
    # Every type whose leading dim is 16: x [16, 8], labels [16], the
    # activations and the per-sample losses.
    text = replace_all(text, [("tensor<16x", f"tensor<{batch}x")])
    if loss == "sum":
        text = replace_all(text, [("rlx.reduce mean %l", "rlx.reduce sum %l")])
    return text


def encoder_graph(batch):
    """examples/transformer_train.mlir at batch `batch` (sequence 4; the
    example's is 2): the batch dim of every type and reshape, and the
    batch * 4 tokens of the classification head."""
    tokens = 4 * batch
    return replace_all(read("transformer_train"), [
        ("tensor<2x4x", f"tensor<{batch}x4x"),
        ("tensor<2x2x4x4", f"tensor<{batch}x2x4x4"),
        ("new_shape = [2, 4, 2, 4]", f"new_shape = [{batch}, 4, 2, 4]"),
        ("new_shape = [2, 4, 8]", f"new_shape = [{batch}, 4, 8]"),
        ("new_shape = [8, 8]", f"new_shape = [{tokens}, 8]"),
        ("%t, %cls_w : tensor<8x8xf32>", f"%t, %cls_w : tensor<{tokens}x8xf32>"),
        ("%z0, %cls_b : tensor<8x3xf32>", f"%z0, %cls_b : tensor<{tokens}x3xf32>"),
        (": tensor<8x3xf32>, tensor<8xi64>",
         f": tensor<{tokens}x3xf32>, tensor<{tokens}xi64>"),
        ("%labels: tensor<8xi64>", f"%labels: tensor<{tokens}xi64>"),
        ("axes = [0] : tensor<8xf32>", f"axes = [0] : tensor<{tokens}xf32>"),
    ])


# The rewrite at the example's own batch is the example (the GPU run mode
# has the compiled cases only, not the examples).
if MODE != "--run-cuda":
    assert mlp_graph(16) == read("mlp_train")
    assert encoder_graph(2) == read("transformer_train")


def compile_step(text, func, options, path):
    """`text` differentiated with `options`, compiled into `path`.so."""
    source = path + ".src.mlir"
    with open(source, "w") as f:
        f.write(text)
    subprocess.run([RLX_OPT, source, f"--rlx-autodiff=func={func} {options}",
                    "-o", path + ".mlir"], check=True)
    subprocess.run([RLX_RUN, path + ".mlir", "--entry", f"{func}_train_step",
                    "--emit-shared-lib", path + ".so", "--no-cache"] + TARGET,
                   check=True, stdout=subprocess.DEVNULL)
    return path + ".so"


def losses_of(stdout):
    found = re.findall(r"^step (\d+): loss (\S+)$", stdout, re.M)
    assert [int(s) for s, _ in found] == list(range(1, STEPS + 1)), stdout
    return np.array([float(v) for _, v in found])


def flags(case, data, init, batched=()):
    result = []
    for name, value in data.items():
        path = os.path.join(case, f"{name}.npy")
        np.save(path, value)
        result += ["--input", f"{name}={path}"]
        if name in batched:
            result += ["--batched", name]
    params = os.path.join(case, "init.safetensors")
    write_safetensors(params, init)
    # rlx-run-aot (the GPU mode) runs libraries only: no cache to skip.
    return result + ["--params", params, "--steps", str(STEPS)] + (
        ["--no-cache"] if MODE == "mpi" else [])


# Compiles run two at a time (the test's time is mostly compiling).
pool = concurrent.futures.ThreadPoolExecutor(max_workers=2)
cases = []


def case(name, graph, batch, options, data, init, ranks, batched=(),
         noise={}):
    """Trains `graph(batch)` on one rank and `graph(batch // N)` with
    data-parallel=N on N ranks for each N in `ranks`, once compiled. The
    entries `noise[p]` of parameter p need only stay within lr * STEPS."""
    folder = os.path.join(tmp, f"case{len(cases)}")
    os.makedirs(folder)
    func = "mlp" if "mlp" in name else "encoder"
    libraries = {n: pool.submit(
        compile_step, graph(batch // n), func,
        options + (f" data-parallel={n}" if n > 1 else ""),
        os.path.join(folder, f"step{n}")) for n in [1] + ranks}
    cases.append((name, folder, flags(folder, data, init, batched), options,
                  libraries, ranks, noise))


def check(name, folder, common, options, libraries, ranks, noise):
    ref_out = os.path.join(folder, "ref")
    run = subprocess.run([RLX_RUN, "--load", libraries[1].result(), "--output",
                          ref_out] + common,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    ref_losses = losses_of(run.stdout)
    ref_params = read_safetensors(os.path.join(ref_out, "params.safetensors"))
    lr = float(re.search(r"lr=(\S+)", options).group(1))
    for n in ranks:
        out = os.path.join(folder, f"out{n}" + ".{rank}")
        run = subprocess.run(launch(n) + ["--load", libraries[n].result(),
                                          "--data-parallel", "--output",
                                          out] + common,
                             capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, f"{name} on {n} ranks:\n" + \
            run.stdout + run.stderr
        got = losses_of(run.stdout)  # also: printed once
        assert np.allclose(got, ref_losses, rtol=LOSS_RTOL, atol=LOSS_ATOL), \
            f"{name} on {n} ranks: losses\n{got}\nreference\n{ref_losses}"
        replicas = [read_safetensors(os.path.join(
            folder, f"out{n}.{r}", "params.safetensors")) for r in range(n)]
        worst = 0.0
        for key, want in ref_params.items():
            for r, params in enumerate(replicas):
                assert np.array_equal(params[key], replicas[0][key]), \
                    f"{name}: rank {r}'s '{key}' differs from rank 0's"
            have = replicas[0][key].copy()
            if key in noise:
                assert np.all(np.abs(have[noise[key]] - want[noise[key]])
                              <= lr * STEPS), key
                have[noise[key]] = want[noise[key]]
            assert np.allclose(have, want, rtol=PARAM_RTOL, atol=PARAM_ATOL), \
                f"{name} on {n} ranks: '{key}' off by " \
                f"{np.abs(have - want).max()}"
            worst = max(worst, float(np.abs(have - want).max()))
        print(f"ok: {name} on {n} ranks: {STEPS} losses and "
              f"{len(ref_params)} parameters match one rank "
              f"(largest difference {worst:.1e})")


if MODE == "--run-cuda":
    class Done:
        def __init__(self, value):
            self.value = value

        def result(self):
            return self.value

    with open("cases.json") as f:
        for name, folder, common, options, libraries, ranks, noise in \
                json.load(f):
            check(name, folder, common, options,
                  {int(n): Done(lib) for n, lib in libraries.items()}, ranks,
                  {key: slice(*bounds) for key, bounds in noise.items()})
    sys.exit(0)

mlp_data, mlp_init = example_inputs("mlp_train", rng)
batches = dict(mlp_data)
batches["x"] = rng.standard_normal((STEPS, 16, 8)).astype(np.float32)
if MODE == "--emit-cuda":
    case("mlp adam", mlp_graph, 16, "optimizer=adam lr=0.01", mlp_data,
         mlp_init, [GPUS])
    _, enc_init = example_inputs("transformer_train", rng)
    enc_data = {"x": rng.standard_normal((4, 4, 8)).astype(np.float32),
                "labels": rng.integers(0, 3, (16,)).astype(np.int64)}
    case("encoder adam", encoder_graph, 4, "optimizer=adam lr=0.01",
         enc_data, enc_init, [GPUS], noise={"qkv_b": slice(8, 16)})
    with open("cases.json", "w") as f:
        json.dump([[name, folder, common, options,
                    {n: lib.result() for n, lib in libraries.items()}, ranks,
                    {key: [bounds.start, bounds.stop]
                     for key, bounds in noise.items()}]
                   for name, folder, common, options, libraries, ranks, noise
                   in cases], f)
    print(f"wrote {len(cases)} data-parallel cases for {GPUS} GPUs")
    sys.exit(0)

case("mlp sgd momentum, batched x", mlp_graph, 16,
     "optimizer=sgd lr=0.1 momentum=0.9", batches, mlp_init, [2, 4],
     batched=("x",))
case("mlp adam", mlp_graph, 16, "optimizer=adam lr=0.01", mlp_data, mlp_init,
     [2, 4])
case("mlp sum loss, bucket-mb=0", lambda b: mlp_graph(b, "sum"), 16,
     "optimizer=sgd lr=0.01 gradient-reduction=sum bucket-mb=0", mlp_data,
     mlp_init, [2])
_, enc_init = example_inputs("transformer_train", rng)
enc_data = {"x": rng.standard_normal((4, 4, 8)).astype(np.float32),
            "labels": rng.integers(0, 3, (16,)).astype(np.int64)}
# The key bias (qkv_b[8:16]) gets no gradient but rounding noise: adding a
# constant to every key of a query shifts its scores equally, which softmax
# ignores. Adam turns noise into steps of about lr whatever its size, so
# those entries follow the noise of each run.
case("encoder adam", encoder_graph, 4, "optimizer=adam lr=0.01", enc_data,
     enc_init, [2, 4], noise={"qkv_b": slice(8, 16)})
for arguments in cases:
    check(*arguments)

# Errors, from every rank (mpirun adds its own lines).
folder = os.path.join(tmp, "errors")
os.makedirs(folder)
for rows, expected in [
        (15, "input 'x' from '.*x.npy' is \\[15, 8\\] f32, whose dim 0 of 15 "
             "does not split into 2 equal slices, one per rank"),
        (12, "input 'x' from '.*x.npy' is \\[12, 8\\] f32, so each of the 2 "
             "ranks takes \\[6, 8\\], but the graph's 'x' is .*: the graph "
             "takes the per-rank batch, and the file holds 2 times it")]:
    data = {"x": np.zeros((rows, 8), np.float32),
            "labels": np.zeros(16, np.int64)}
    run = subprocess.run(mpirun + ["-np", "2", RLX_RUN, "--load",
                                   cases[1][4][2].result(),
                                   "--data-parallel"] +
                         flags(folder, data, mlp_init),
                         capture_output=True, text=True, timeout=300)
    assert run.returncode != 0, run.stdout
    assert re.search("rlx-run: error: --data-parallel: " + expected,
                     run.stderr), run.stderr
print("ok: data-parallel errors name the input")
