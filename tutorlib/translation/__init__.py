"""The translation stack: the English -> Portuguese translator of chapters 9 and 10, in layers.

It sits on the course's layers (``tutorlib.attention``, ``tutorlib.nn``) and
never the other way round. Read it bottom up:

- ``config``       ``TranslatorConfig`` and ``PRESETS`` (``GPTConfig``, ``GPT_PRESETS``), without torch
- ``phrasebook``   the sentence pairs, without torch: ``lexicon`` (word tables), ``grammar``
  (specs, agreement, conjugation, ``render``), ``splits`` (seeded train/valid/test, held-out
  combinations)
- ``sentences``    ``split_sentences``: a text into sentences (``translate`` and the CLI), no torch
- ``data``         tokens, ``Vocab``, padded batches (``Batch``) with their masks, a Tatoeba loader
- ``model``        ``Translator``, the encoder-decoder built from ``tutorlib.nn``
- ``checkpoints``  ``save_model``, ``save_checkpoint``, ``read_checkpoint``, ``load_checkpoint``,
  ``load_pretrained``, ``atomic_save``, ``model_state`` / ``model_from_state``
- ``decoding``     ``KVCache``, the length budget ``output_budget``, the repetition guard,
  ``greedy_decode``, ``beam_search``, ``translate`` (unknown words copied through attention)
- ``evaluation``   ``evaluate``: BLEU, chrF, exact match
- ``training``     the loop: ``TrainState`` (to and from a checkpoint), ``train_step``,
  ``run_epoch``, ``validate``, ``train``; resuming, Ctrl-C, torchrun
- ``gpt``          chapter 13's decoder-only translator: ``GPT``, the sequence layout and loss
  mask, ``gpt_loss``, ``generate`` (greedy and sampling, KV cache), ``translate``,
  ``train_gpt`` (the loop above with ``build_model`` and ``batch_loss``), ``load_gpt``
- ``cli``          ``python -m tutorlib train|evaluate|translate`` (``--model gpt``)

The data, the loop and the checkpoints do not depend on the model's
architecture beyond ``training.build_model`` (``build_translator``) and
``training.batch_loss`` (``translator_loss``); a checkpoint names its
model's kind (``"translator"`` or ``"gpt"``).
``tutorlib.translator``, ``tutorlib.training``, ``tutorlib.data``,
``tutorlib.phrasebook`` and ``tutorlib.config`` are the old homes of these
names and re-export them. This package imports nothing at import time, so
``tutorlib.translation.config`` and ``.phrasebook`` stay free of torch.
"""
