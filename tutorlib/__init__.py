"""tutorlib: the helper package of the course *Attention, step by step*.

Each module holds the code that one part of the book derives:

- ``tutorlib.attention``  softmax, scaled dot-product attention, masks (chapters 3, 4 and 6)
- ``tutorlib.display``    labelled matrices, attention heatmaps, word-vector plots (all chapters)
- ``tutorlib.examples``   the worked numbers of the course's source material (chapters 1 to 4)
- ``tutorlib.experiments`` the measurements behind the 1/sqrt(d_k) scaling (chapter 4)
- ``tutorlib.static``     the explorers' static twins: every state computed when a chapter runs, for the book (chapters 3 to 6, 10)
- ``tutorlib.explorers``  the interactive explorers (temperature, √d_k saturation, attention, heads, masks), their logic kept as pure functions (chapters 3 to 6)
- ``tutorlib.nn``         multi-head attention, masks, positional encodings, encoder and decoder layers in PyTorch (chapters 5 to 8)
- ``tutorlib.phrasebook`` the English→Portuguese phrasebook: word tables, grammar, seeded splits, without torch (chapter 9)
- ``tutorlib.data``       tokens, vocabularies, batches, a Tatoeba loader; re-exports the phrasebook (chapter 9)
- ``tutorlib.config``    the translator's config and presets, without torch (chapter 9)
- ``tutorlib.translator`` the encoder-decoder translator, KV cache, greedy and beam search, unknown-word copy, BLEU, checkpoints (chapters 9 and 10)
- ``tutorlib.training``  the training loop, resuming, torchrun; ``python -m tutorlib train|evaluate|translate`` (chapters 9 and 10)
- ``tutorlib.checks``    the argument checks every module shares (whole numbers, finite numbers)
- ``tutorlib.efficient``  online softmax, tiled (FlashAttention-style) attention, peak-memory measurement (chapter 11)
- ``tutorlib.debug``      checks that find why a Transformer does not learn: masks, causality, padding, shift, ... (chapter 12)
- ``tutorlib.bughunt``    exercise 12's graded bug hunt: an attention with one bug planted per learner id
- ``tutorlib.spreadsheet`` cross-attention exported as a workbook of live formulas (chapter 7)
"""

__version__ = "0.1.0"
