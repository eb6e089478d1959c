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
- ``versioned``: the output depends on the PyTorch release (its random-number algorithms, as in
  seeded sampling or dropout masks, or a documented change of behaviour); the cell asserts what
  holds on every tested release (``make test-torch``).

Nothing here pins the CPU kernels: a pin would hide the difference from the tests, not from a
learner's Colab or laptop.

Every nbval cell is marked ``slow``: `make check` leaves them out (it runs pytest without nbval),
`make test` runs them.
"""

import os

import pytest

# The chapters ship the small models whose training would take minutes (shipped_or_trained in
# tutorlib.translation.checkpoints): under the tests a chapter that would train one instead, its
# shipped file made by another recipe than the cell's, fails at once and says how to remake it.
os.environ.setdefault("TUTORLIB_REQUIRE_SHIPPED", "1")

UNCOMPARED_TAGS = ("trained", "measured", "versioned")


def pytest_collection_modifyitems(items):
    for item in items:
        cell, options = getattr(item, "cell", None), getattr(item, "options", None)
        if cell is None or options is None:  # not one of nbval's notebook cells
            continue
        item.add_marker(pytest.mark.slow)  # a kernel runs the chapter, cell by cell
        if set(cell.get("metadata", {}).get("tags", [])) & set(UNCOMPARED_TAGS):
            options["check"] = False  # still executed: an assert in it still fails the test


# --- how many messages a cell sends ------------------------------------------------------------
# nbval waits for a cell's reply first and reads the kernel's output channel (iopub) only after
# it: everything the cell sent waits in ZeroMQ's queues meanwhile, which keep 1,000 messages a
# socket by default and drop the rest, the kernel's closing "idle" among them, after which nbval
# fails with "Timeout of 5 seconds exceeded waiting for output" (on this machine a cell that
# redrew a display 5,000 times passed and one that redrew it 10,000 times failed so). A cell whose
# messages grow with its running time (a progress bar redrawn ten times a second) passes on a
# fast machine and fails on a slow one. So every cell is held to 250, a quarter of one queue: a
# cell under it here stays under the queues on a machine four times slower even if every one of
# its messages came from the clock. tutorlib's progress line redraws per share of the steps,
# never per tick of time (tutorlib.display.Progress); tests/test_notebooks.py checks both.
MAX_CELL_MESSAGES = 250


_MESSAGES: dict[str, int] = {}  # cell -> kernel messages, for the summary below


def pytest_terminal_summary(terminalreporter):
    if _MESSAGES:
        top = sorted(_MESSAGES.items(), key=lambda kv: -kv[1])[:3]
        terminalreporter.write_line(
            f"kernel messages per cell, at most {MAX_CELL_MESSAGES}; the most: "
            + ", ".join(f"{n} ({cell})" for cell, n in top)
        )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    parent = getattr(item, "parent", None)
    if getattr(item, "cell", None) is None or not hasattr(parent, "get_kernel_message"):
        return (yield)
    read, count = parent.get_kernel_message, [0]

    def counted(*args, **kwargs):
        message = read(*args, **kwargs)
        count[0] += 1
        return message

    parent.get_kernel_message = counted
    try:
        result = yield
    finally:
        del parent.get_kernel_message  # the class's method again
    item.user_properties.append(("kernel_messages", count[0]))
    _MESSAGES[item.nodeid] = count[0]
    assert count[0] <= MAX_CELL_MESSAGES, (
        f"this cell sent {count[0]} kernel messages, more than {MAX_CELL_MESSAGES}: on a "
        "machine a few times slower nbval may lose its last ones (conftest.py says why). "
        "Redraw progress per share of the steps (tutorlib.display.Progress), not per tick "
        "of time, and print less often"
    )
    return result
