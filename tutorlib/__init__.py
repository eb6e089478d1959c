"""tutorlib: the helper package of the course *Attention, step by step*.

Each module holds the code that one part of the book derives. The course's layers:

- ``tutorlib.attention``  softmax, scaled dot-product attention, masks (chapters 3, 4 and 6)
- ``tutorlib.nn``         multi-head attention, masks, positional encodings, encoder and decoder
  layers in PyTorch (chapters 5 to 8): ``tutorlib.nn.attention`` (heads, masks, cross-attention),
  ``tutorlib.nn.block`` (positions, feed-forward, the layers and stacks); import from the package
- ``tutorlib.efficient``  online softmax, tiled (FlashAttention-style) attention, peak-memory
  measurement (chapter 11)
- ``tutorlib.modern``     attention in today's models: RoPE, grouped-query attention, sliding
  windows, the KV cache's size for published model shapes (chapter 15)
- ``tutorlib.tokenizers`` byte-level byte-pair encoding (``BPE``): train, encode, decode, save
  (chapter 14)

The translation stack, built on those layers (chapters 9 and 10), a subpackage whose data,
training loop and checkpoints other models can share:

- ``tutorlib.translation``              the subpackage; its docstring reads it bottom up
- ``tutorlib.translation.config``       the translator's config and presets, without torch
- ``tutorlib.translation.phrasebook``   the English→Portuguese sentence pairs, without torch:
  ``tutorlib.translation.phrasebook.lexicon`` (word tables),
  ``tutorlib.translation.phrasebook.grammar`` (agreement, conjugation, rendering),
  ``tutorlib.translation.phrasebook.splits`` (seeded splits, held-out combinations)
- ``tutorlib.translation.sentences``    a text into its sentences (``translate`` and the CLI),
  no torch
- ``tutorlib.translation.data``         tokens, vocabularies, batches, a Tatoeba loader
- ``tutorlib.translation.cache``        the KV cache, below every model
- ``tutorlib.translation.guards``       the length budget and the repetition guard both decoders use
- ``tutorlib.translation.model``        the encoder-decoder ``Translator``, its builder and loss
- ``tutorlib.translation.decoding``     greedy and beam search, ``translate`` with unknown words
  copied through attention (of a given model)
- ``tutorlib.translation.kinds``        the one list of model kinds (config, builder, loss, batcher)
- ``tutorlib.translation.checkpoints``  saving and loading models and training checkpoints,
  the shipped model (``load_pretrained``)
- ``tutorlib.translation.shipped``      ``translate`` and its siblings with the shipped model as
  their default
- ``tutorlib.translation.state``        ``TrainState``, resuming from a checkpoint
- ``tutorlib.translation.processes``    torchrun, Ctrl-C, the random states
- ``tutorlib.translation.training``     the training loop
- ``tutorlib.translation.evaluation``   BLEU, chrF, exact match
- ``tutorlib.translation.gpt``          the decoder-only translator of chapter 13, one module per
  seam: ``tutorlib.translation.gpt.tokens``, ``tutorlib.translation.gpt.batches``,
  ``tutorlib.translation.gpt.model``, ``tutorlib.translation.gpt.modern`` (chapter 15's
  ``ModernGPT``), ``tutorlib.translation.gpt.decoding``, ``tutorlib.translation.gpt.checkpoints``,
  ``tutorlib.translation.gpt.training`` (``tutorlib.gpt`` is its short name for learners)
- ``tutorlib.translation.cli``          ``python -m tutorlib train|evaluate|translate``
  (``--model gpt`` for chapter 13's; ``tutorlib.__main__`` starts it)
- ``tutorlib.modern_gpt``                chapter 13's GPT with chapter 15's attention: grouped-query
  attention and RoPE in every block, trained through the same loop, key/value heads mean-pooled

The old homes of those names, kept so that every import keeps working (they re-export):

- ``tutorlib.translator`` (model, decoding, evaluation, checkpoints), ``tutorlib.training``,
  ``tutorlib.data``, ``tutorlib.phrasebook``, ``tutorlib.config``

Explorers and what they show:

- ``tutorlib.explorers``  the interactive explorers and their static twins (chapters 3 to 6, 10,
  13, 15); its docstring maps them. One module per family: ``tutorlib.explorers.softmax``
  (temperature, √d_k saturation), ``tutorlib.explorers.attention`` (a query, a head, the mask
  editor), ``tutorlib.explorers.encoder_decoder`` (the translator's cross-attention),
  ``tutorlib.explorers.decoder_only`` (the GPT's attention), ``tutorlib.explorers.kv_cache`` (the
  KV cache's memory); what they are built from: ``tutorlib.explorers.widgets`` (the explorer box,
  live controls, the redrawn view), ``tutorlib.explorers.controls`` (each explorer's controls
  declared once, ``REGISTRY`` of explorers by chapter), ``tutorlib.explorers.static`` (every
  state computed when a chapter runs, for the book)
- ``tutorlib.static``     the old home of the static twins (re-exports
  ``tutorlib.explorers.static``)
- ``tutorlib.display``    labelled matrices, attention heatmaps, word-vector plots (all chapters)
- ``tutorlib.spreadsheet`` cross-attention exported as a workbook of live formulas (chapter 7)

And the rest:

- ``tutorlib.examples``   the worked numbers of the course's source material (chapters 1 to 4)
- ``tutorlib.experiments`` the measurements behind the 1/sqrt(d_k) scaling (chapter 4)
- ``tutorlib.debug``      checks that find why a Transformer does not learn: masks, causality,
  padding, shift, ... (chapter 12), in ``tutorlib.debug.report`` (``Report``),
  ``tutorlib.debug.probes``, ``tutorlib.debug.conventions``, ``tutorlib.debug.training`` and
  ``tutorlib.debug.attention_weights``
- ``tutorlib.bughunt``    exercise 12's graded bug hunt: an attention with one bug planted per
  learner id
- ``tutorlib.checks``     the one home of the argument and shape rules every module shares (whole
  numbers, finite numbers, dropout rates, the heads dividing the width, the q/k/v shapes of
  attention)
"""

__version__ = "0.1.0"
