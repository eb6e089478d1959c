"""The course's grader, behind ``tools/grade.py``: one idea per module.

- ``screen``   which cells of a notebook run (everything but the course's setup and check cells)
- ``sandbox``  the bubblewrap sandbox a submission's kernel runs in, and its limits
- ``wire``     what crosses the pipe between kernel and checker: JSON data, never objects
- ``kernel``   the kernel side, inside the sandbox: runs cells and the learner's functions
- ``session``  a kernel seen from the checker: start, run cells, restart and replay
- ``checker``  the checking side: otter's test files, run against proxies, and the score
- ``batch``    one checker process per submission, in parallel; which exercise is which
- ``reports``  the per-submission JSON, summary.csv and the printed table

exercises/README.md tells the whole story.
"""
