"""tutorlib: the helper package of the course *Attention, step by step*.

The stable public API, what learners type (it stays, without warnings):

- ``tutorlib.translator``: ``translate``, ``translate_sentences``,
  ``translate_with_alignment`` (chapter 10's translator; the shipped one unless a model is
  given) and ``load_pretrained`` (the shipped translator and its vocabularies)
- ``tutorlib.gpt``: chapter 13's GPT as learners meet it, every public name of the GPT's
  package and of its checkpoints and loop (``GPT``, ``train_gpt``, ``load_pretrained``, and
  ``translate`` with the shipped GPT as its default model): the package's own face cannot
  name the checkpoints and the loop, which sit above the model kinds that import its models
- ``python -m tutorlib train|evaluate|translate``: the command line (``tutorlib.__main__``)

Everything else is imported from its one home below: the module that defines it, or for
``tutorlib.nn``, ``tutorlib.translation.gpt``, ``tutorlib.translation.phrasebook``,
``tutorlib.debug`` and ``tutorlib.explorers`` the package itself. The other names of
``tutorlib.translator`` and every name of the deprecated ones (``tutorlib.training``,
``tutorlib.data``, ``tutorlib.phrasebook``, ``tutorlib.config``, ``tutorlib.static``,
``tutorlib.modern_gpt``) still resolve, with a ``DeprecationWarning`` that names their home.

Each module holds the code that one part of the book derives. The course's layers:

- ``tutorlib.attention``  softmax, scaled dot-product attention, masks (chapters 3, 4 and 6)
- ``tutorlib.nn``         multi-head attention, masks, positional encodings, encoder and decoder
  layers in PyTorch (chapters 5 to 8): ``tutorlib.nn.attention`` (heads, masks, cross-attention),
  ``tutorlib.nn.block`` (positions, feed-forward, the layers and stacks)
- ``tutorlib.efficient``  online softmax, tiled (FlashAttention-style) attention, peak-memory
  measurement (chapter 11)
- ``tutorlib.modern``     attention in today's models: RoPE, grouped-query attention, sliding
  windows, the KV cache's size for published model shapes (chapter 15)
- ``tutorlib.latent``     multi-head latent attention: keys and values read out of one cached
  latent per token, with a decoupled RoPE key, and its cache's size (chapter 17)
- ``tutorlib.tokenizers`` byte-level byte-pair encoding (``BPE``): train, encode, decode, save
  (chapter 14)

The translation stack, built on those layers (chapters 9, 10 and 13 to 15), a subpackage whose data,
training loop and checkpoints other models can share:

- ``tutorlib.translation``              the subpackage; its docstring reads it bottom up
- ``tutorlib.translation.config``       the translator's config and presets, without torch
- ``tutorlib.translation.phrasebook``   the English→Portuguese sentence pairs, without torch:
  ``tutorlib.translation.phrasebook.lexicon`` (word tables),
  ``tutorlib.translation.phrasebook.grammar`` (agreement, conjugation, rendering),
  ``tutorlib.translation.phrasebook.drawing`` (the seeded generator, clauses of every kind),
  ``tutorlib.translation.phrasebook.splits`` (seeded splits, held-out combinations),
  ``tutorlib.translation.phrasebook.world`` (real names and numbers, chapter 14's GPT),
  ``tutorlib.translation.phrasebook.relations`` (a relation before a name: "my friend ana")
- ``tutorlib.translation.sentences``    a text into its sentences (``translate`` and the CLI),
  no torch
- ``tutorlib.translation.typos``        a typo one edit from a known word read as that word,
  no torch
- ``tutorlib.translation.common_english`` common English words never read as typos
- ``tutorlib.translation.data``         tokens, vocabularies, batches, a Tatoeba loader
- ``tutorlib.translation.model``        the encoder-decoder ``Translator``
- ``tutorlib.translation.checkpoints``  saving and loading models and training checkpoints,
  the shipped model (``load_pretrained``)
- ``tutorlib.translation.cache``        the KV cache (``KVCache``)
- ``tutorlib.translation.guards``       the length budget and the repetition guard of every decoder
- ``tutorlib.translation.copying``      which unknown source word an output ``<unk>`` copies
- ``tutorlib.translation.decoding``     greedy and beam search, ``translate`` of a given model with
  unknown words copied through attention, cross-attention maps
- ``tutorlib.translation.shipped``      ``translate`` and its kin with the shipped model as default
  (what ``tutorlib.translator`` and ``tutorlib.gpt`` give learners)
- ``tutorlib.translation.web``          the shipped translator for the book's page: float16
  weights and the input path's rules as data (``tools/export_web.py``, ``assets/web/``)
- ``tutorlib.translation.kinds``        the one list of model kinds (translator, GPT, modern GPT,
  latent GPT)
- ``tutorlib.translation.evaluation``   BLEU, chrF, exact match
- ``tutorlib.translation.state``        ``TrainState`` (to and from a checkpoint), resuming
- ``tutorlib.translation.processes``    torchrun, Ctrl-C and random states for the loop
- ``tutorlib.translation.training``     the training loop around ``TrainState``
- ``tutorlib.translation.gpt``          the decoder-only translator of chapter 13: one causal
  self-attention stack over ``[English] <sep> [Portuguese] <eos>``, the loss on the Portuguese
  only, KV-cached greedy and sampled decoding, ``translate``, ``train_gpt`` through the same loop
  and checkpoints; one module per seam: ``tutorlib.translation.gpt.tokens``,
  ``tutorlib.translation.gpt.batches``, ``tutorlib.translation.gpt.model``,
  ``tutorlib.translation.gpt.decoding``, ``tutorlib.translation.gpt.checkpoints``,
  ``tutorlib.translation.gpt.training``
- ``tutorlib.translation.gpt.modern``   chapter 13's GPT with chapter 15's attention: grouped-query
  attention and RoPE in every block, key/value heads mean-pooled (``train_modern_gpt`` in
  ``tutorlib.translation.gpt.training``, through the same loop)
- ``tutorlib.translation.gpt.latent``   chapter 15's GPT with multi-head latent attention in
  every block (``LatentGPT``, chapter 17)
- ``tutorlib.translation.cli``          ``python -m tutorlib train|evaluate|translate``
  (``--model gpt`` for chapter 13's; ``tutorlib.__main__`` starts it)

Serving the GPT at scale (chapter 17), above the translation stack: chapter 13's GPT decoding
many sentences at once, its KV cache held in less memory, its target passes made fewer:

- ``tutorlib.serving``              the subpackage; its docstring lists what each module holds
- ``tutorlib.serving.step``         one GPT step whose keys and values live outside a ``KVCache``
- ``tutorlib.serving.paged``        a paged KV cache (blocks of a shared pool, a block table per
  sequence) and the bytes of contiguous against paged reservation
- ``tutorlib.serving.quantized``    a KV cache of int8 or int4 keys and values with their scales
- ``tutorlib.serving.speculative``  greedy speculative decoding with a draft GPT

Explorers and what they show:

- ``tutorlib.explorers``  the interactive explorers and their static twins (chapters 3 to 6, 10,
  13, 15 to 17); its docstring maps them. One module per family: ``tutorlib.explorers.softmax``
  (temperature, √d_k saturation), ``tutorlib.explorers.attention`` (a query, a head, the mask
  editor), ``tutorlib.explorers.encoder_decoder`` (the translator's cross-attention),
  ``tutorlib.explorers.decoder_only`` (the GPT's attention), ``tutorlib.explorers.kv_cache`` (the
  KV cache's memory), ``tutorlib.explorers.heads`` (one head's pattern, and what switching it off
  does to a translation), ``tutorlib.explorers.paged_cache`` (a batch's cache in blocks); what
  they are built from: ``tutorlib.explorers.widgets`` (the explorer box, live controls, the
  redrawn view), ``tutorlib.explorers.controls`` (each explorer's controls declared once,
  ``REGISTRY`` of explorers by chapter), ``tutorlib.explorers.static`` (every state computed when
  a chapter runs, for the book)
- ``tutorlib.display``    labelled matrices, attention heatmaps, word-vector plots (all chapters)
- ``tutorlib.spreadsheet`` cross-attention exported as a workbook of live formulas (chapter 7)

And the rest:

- ``tutorlib.examples``   the worked numbers of the course's source material (chapters 1 to 4)
- ``tutorlib.experiments`` the measurements behind the 1/sqrt(d_k) scaling (chapter 4)
- ``tutorlib.debug``      checks that find why a Transformer does not learn: masks, causality,
  padding, shift, ... (chapter 12), in ``tutorlib.debug.report`` (``Report``),
  ``tutorlib.debug.probes``, ``tutorlib.debug.conventions``, ``tutorlib.debug.training`` and
  ``tutorlib.debug.attention_weights``; and what a trained model's heads learned (head ablation,
  attention-pattern scores, induction heads on a toy model) in ``tutorlib.debug.heads``
  (chapter 16)
- ``tutorlib.bughunt``    exercise 12's graded bug hunt: an attention with one bug planted per
  learner id
- ``tutorlib.checks``     the one home of the argument and shape rules every module shares (whole
  numbers, finite numbers, the q/k/v shapes of attention)
"""

__version__ = "0.1.0"
