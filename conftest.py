"""How nbval treats the chapters' cells: which outputs it compares (CONTRIBUTING.md, "Outputs
that hold on every CPU").

nbval re-executes every chapter and compares each cell's output with the committed one, digit
for digit. That is right for an *exact* cell (no training, no long float reduction) and wrong for
two kinds of cell, which carry a tag saying why:

- ``trained``: the output is downstream of optimizer steps. Another CPU's kernels (AVX-512, AVX2,
  an ARM laptop's) sum floats in another order, training amplifies the last bits, and the printed
  digits move. The cell asserts the claim its prose makes, with a margin that holds on every
  kernel set, so a real regression still fails; its printed digits are not compared.
- ``measured``: a timing or a memory peak of the machine that runs it.

Nothing here pins the CPU kernels: a pin would hide the difference from the tests, not from a
learner's Colab or laptop.

Every nbval cell is marked ``slow``: `make check` leaves them out (it runs pytest without nbval),
`make test` runs them.
"""

import pytest

UNCOMPARED_TAGS = ("trained", "measured")


def pytest_collection_modifyitems(items):
    for item in items:
        cell, options = getattr(item, "cell", None), getattr(item, "options", None)
        if cell is None or options is None:  # not one of nbval's notebook cells
            continue
        item.add_marker(pytest.mark.slow)  # a kernel runs the chapter, cell by cell
        if set(cell.get("metadata", {}).get("tags", [])) & set(UNCOMPARED_TAGS):
            options["check"] = False  # still executed: an assert in it still fails the test
