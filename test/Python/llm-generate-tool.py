# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""tools/rlx-generate on a tiny random Llama written as a Hugging Face
directory: llm-generate-tool.py SCRATCH_DIR TOOL.

Greedy generation of 32 tokens prints the NumPy reference's tokens, then
the prefill and decode rates; seeded sampling prints the same tokens twice;
a missing model directory is an error with exit status 1."""

import contextlib
import importlib.util
import io
import os
import re
import sys

import numpy as np

from llm_reference import (LLAMA, random_weights, reference_greedy,
                           write_hf_directory)
from pychecks import check, finish

scratch, tool = sys.argv[1], sys.argv[2]
rng = np.random.default_rng(7)
weights = random_weights(LLAMA, rng)
model_dir = os.path.join(scratch, "llama")
write_hf_directory(model_dir, LLAMA, weights, shards=1)
prompt = [5, 17, 42, 3, 88]
want, margin = reference_greedy(LLAMA, weights, prompt, 32)
print(f"smallest greedy margin {margin:.3g}")


# The tool's main() runs in this process, which has what the package needs
# (the sanitizer runtime preloaded in an ASan build, lit.local.cfg).
spec = importlib.util.spec_from_file_location("rlx_generate", tool)
rlx_generate = importlib.util.module_from_spec(spec)
spec.loader.exec_module(rlx_generate)


class Result:
    def __init__(self, argv):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            self.returncode = rlx_generate.main(argv)
        self.stdout, self.stderr = out.getvalue(), err.getvalue()


def run(*args):
    return Result(["-m", model_dir, "--prompt-ids",
                   ",".join(map(str, prompt)), "-c", "48", *args])


greedy = run("-n", "32", "--temp", "0")
got = [int(t) for t in greedy.stdout.split()]
check(greedy.returncode == 0 and got == want,
      f"greedy: {sum(a == b for a, b in zip(got, want))} of 32 tokens match "
      f"the reference (status {greedy.returncode}) {greedy.stderr.strip()}")
rates = re.search(r"prompt: 5 tokens, prefill [\d.]+ tokens/s; generated: "
                  r"32 tokens, decode [\d.]+ tokens/s", greedy.stderr)
check(rates is not None, f"rates line: {greedy.stderr.strip()}")

sampled = [run("-n", "12", "--temp", "0.9", "--top-k", "30", "--top-p",
               "0.9", "--repeat-penalty", "1.1", "--seed", "11")
           for _ in range(2)]
check(all(r.returncode == 0 for r in sampled)
      and sampled[0].stdout == sampled[1].stdout
      and len(sampled[0].stdout.split()) == 12,
      f"seeded sampling repeats: {sampled[0].stdout.strip()}")

missing = Result(["-m", os.path.join(scratch, "absent"), "--prompt-ids",
                  "1,2"])
check(missing.returncode == 1 and "config.json" in missing.stderr,
      f"a missing model directory: {missing.stderr.strip()}")
finish()
