"""The translation stack: the English -> Portuguese translators of chapters 9, 10 and 13 to 15.

It sits on the course's layers (``tutorlib.checks``, ``tutorlib.nn``,
``tutorlib.modern``, ``tutorlib.tokenizers``, and ``tutorlib.display`` for the training
bar) and never the other way round. Importing any ``gpt.*`` module runs the GPT
package's face first, which imports ``gpt.tokens``, ``gpt.batches``, ``gpt.model`` and
``gpt.decoding`` (and below them ``cache`` and ``guards``). Its modules import one way,
bottom up (``tests/test_import_graph.py`` checks that no circle comes back, imports inside
functions counted):

    config -> phrasebook, common_english -> sentences, typos
      -> data -> gpt.tokens, gpt.batches -> cache, guards
      -> model, gpt.model, gpt.modern -> decoding, gpt.decoding -> kinds
      -> checkpoints, gpt.checkpoints -> shipped -> processes, state
      -> training, gpt.training -> evaluation -> cli
    (above them the stable API learners type: tutorlib.translator, tutorlib.gpt)

- ``config``       ``TranslatorConfig``, ``GPTConfig`` and their presets; the training
  settings written once (``TrainingSettings``), ``VOCAB_FIELDS``, ``shape_fields``,
  ``COMMAND_LINE_KINDS``. No torch
- ``phrasebook``   the sentence pairs, no torch: ``lexicon`` (word tables), ``grammar``,
  ``splits`` (seeded train/valid/test, held-out combinations), ``world`` (the same sentences
  with real names of 34 languages and numbers of 1 to 6 digits, chapter 14's GPT)
- ``sentences``    ``split_sentences``, ``as_sentences`` (the argument every translate takes),
  ``not_english``, ``tell`` (how every translate says a notice). No torch
- ``typos``        ``read_typos``: a word one edit from a phrasebook word read as that word,
  with a notice; its data (``typo_words``, ``not_typos``; ``common_english``). No torch
- ``data``         tokens, ``Vocab``, padded batches (``Batch``) and their masks, Tatoeba
- ``cache``        ``KVCache``, below every model that fills it
- ``guards``       what keeps any decoder finite: ``output_budget`` (``2 S + 5``), the
  repetition guard (``repetition_mask``, ``guard``)
- ``model``        ``Translator`` (chapter 9's encoder-decoder), ``build_translator``,
  ``translation_loss``, ``translator_loss``
- ``gpt``          chapter 13's decoder-only translator, one module per seam: ``tokens``,
  ``batches``, ``model``, ``modern`` (chapter 15's ``ModernGPT``), ``latent`` (chapter 17's
  ``LatentGPT``), ``decoding``,
  ``checkpoints``, ``training`` (its ``__init__`` names them all)
- ``decoding``     ``greedy_decode``, ``beam_search``, ``translate`` of a given translator
  (unknown words copied through cross-attention), ``cross_attention_maps``
- ``kinds``        the one list of model kinds (``"translator"``, ``"gpt"``,
  ``"modern_gpt"``, ``"latent_gpt"``): config, presets, model class, builder, loss, batcher,
  translate, fit rule; ``kind_of`` decides a model's, a config's or a file's kind once
- ``checkpoints``  ``save_model``, ``read_checkpoint``, ``load_checkpoint``,
  ``load_pretrained``, ``atomic_save``: one file format, every kind (it names its kind)
- ``shipped``      ``translate`` and its kin for learners: the decoder's own, with the
  shipped model as the default. The decoders sit below the checkpoints and so never
  load a model themselves; this module, above both, supplies the default
- ``web``          the shipped translator as the book's page runs it (``assets/web/``):
  ``web_weights`` (float16), ``rounded_model``, ``web_rules`` (the vocabularies and the
  input path's constants as data), ``export``
- ``processes``    torchrun, Ctrl-C and random states for the loop
- ``state``        ``TrainState`` (to and from a checkpoint), ``resume_checkpoint``
- ``training``     the loop: ``train_step``, ``run_epoch``, ``validate``, ``train``
  (builder, loss and batches from the config's kind), ``make_optimizer``, ``plot_history``
- ``evaluation``   ``evaluate``: BLEU, chrF, exact match, each kind decoded its own way
- ``cli``          ``python -m tutorlib train|evaluate|translate`` (``--model gpt``)

Each name has one home, the module above that defines it (or the face of the GPT's
package for its lower modules), and tests, tools and tutorlib import it from there.
``tutorlib.translator`` (``translate``, ``translate_sentences``,
``translate_with_alignment``, ``load_pretrained``) keeps the stable API learners type, and
``tutorlib.gpt`` is the GPT's face for learners (every public name of the GPT's package,
modern variant, checkpoints and loop): the chapters and exercises take GPT names from it.
The other names of the old short modules (``tutorlib.translator``, ``.training``,
``.data``, ``.phrasebook``, ``.config``, ``.static``, ``.modern_gpt``) still resolve, with a
``DeprecationWarning`` that names their home. This package imports nothing at import
time, so ``tutorlib.translation.config`` and ``.phrasebook`` stay free of torch.
"""
