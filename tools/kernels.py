"""Run the chapters' nbval once under each PyTorch CPU kernel set this CPU supports.

    python tools/kernels.py [PYTEST ARGS ...]        (make test-kernels)

PyTorch picks its CPU kernels by the widest SIMD instructions the processor has: AVX-512 on most
cloud VMs and Colab, AVX2 on many laptops and desktops, plain kernels ("default") elsewhere; an
ARM laptop (a Mac) runs NEON or SVE kernels, nearest to "default" here. Each sums floats in its
own order, and after training the printed digits differ. The committed outputs must pass nbval
under every one of them (CONTRIBUTING.md, "Outputs that hold on every CPU").

The variable ATEN_CPU_CAPABILITY chooses the kernel set for one process. This script sets it for
each run it starts and nowhere else: the project never pins it, since a pin would hide the
difference from the tests and not from a learner's machine.

Extra arguments go to pytest (default: the chapters folder), e.g. a single notebook or `-x`.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ORDER = ("default", "avx2", "avx512")  # x86's kernel sets, narrowest first


def native_capability() -> str:
    """The kernel set PyTorch picks on this CPU when nothing is set, e.g. 'avx512' or 'default'."""
    env = {k: v for k, v in os.environ.items() if k != "ATEN_CPU_CAPABILITY"}
    code = "import torch; print(torch.backends.cpu.get_cpu_capability())"
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    return out.stdout.strip().lower()


def kernel_sets(native: str) -> list[str]:
    """Every kernel set this CPU can run: 'default' always, then each x86 set up to the native
    one (AVX-512 hardware runs AVX2 kernels too); on other processors 'default' and the native."""
    if native in ORDER:
        return list(ORDER[: ORDER.index(native) + 1])
    return ["default", native]


def main(argv: list[str]) -> int:
    native = native_capability()
    sets = kernel_sets(native)
    args = argv or ["chapters"]
    print(f"this CPU's own kernel set: {native}; running nbval under {', '.join(sets)}", flush=True)
    failed = []
    for capability in sets:
        env = dict(os.environ, ATEN_CPU_CAPABILITY=capability)
        start = time.perf_counter()
        print(f"\n=== ATEN_CPU_CAPABILITY={capability} ===", flush=True)
        code = subprocess.run(
            [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *args],
            cwd=ROOT,
            env=env,
        ).returncode
        print(
            f"=== {capability}: {'passed' if code == 0 else 'FAILED'} "
            f"in {time.perf_counter() - start:.0f} s ===",
            flush=True,
        )
        if code != 0:
            failed.append(capability)
    if failed:
        print(f"nbval failed under {', '.join(failed)} (passed under the others)")
        return 1
    print(f"nbval passed under every kernel set of this CPU: {', '.join(sets)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
