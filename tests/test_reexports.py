"""The translator's old modules re-export what moved to tutorlib.translation: the very same objects.

tutorlib.translator, .training, .data, .phrasebook, .config and __main__ were the translator's homes
before it became the subpackage tutorlib.translation (issue 22). Chapters, exercises, benchmarks and
learners' own code import from them; each name must still be there, and be the object the new home
holds (a copy would drift, and a monkeypatch of one would not reach the other).
"""

import importlib

import pytest

# old module -> {new home: names}: every name chapters, exercises, tests and benchmarks import
MOVED = {
    "tutorlib.translator": {
        "tutorlib.translation.config": ["TranslatorConfig", "PRESETS", "PRETRAINED_PATH"],
        "tutorlib.translation.model": ["Translator"],
        "tutorlib.translation.data": ["PAD_ID", "BOS_ID", "EOS_ID", "UNK_ID", "SPECIALS", "Vocab"],
        "tutorlib.translation.cache": ["KVCache"],
        # the decoder's own, with the shipped translator as the default model (the decoders sit
        # below the checkpoints)
        "tutorlib.translation.shipped": [
            "translate",
            "translate_sentences",
            "translate_with_alignment",
        ],
        "tutorlib.translation.decoding": [
            "KVCache",
            "greedy_decode",
            "beam_search",
            "length_penalty_factor",
            "Translation",
            "cross_attention",
            "cross_attention_maps",
            "ALIGN_LAYER",
            "MAX_RUN",
            "NO_REPEAT_NGRAM",
            "output_budget",
            "model_vocabs",
            "_repetition_mask",
            "_budgets",
        ],
        "tutorlib.translation.evaluation": ["evaluate"],
        "tutorlib.translation.checkpoints": [
            "load_pretrained",
            "CheckpointError",
            "pick_device",
            "save_model",
            "read_checkpoint",
            "load_checkpoint",
            "CHECKPOINT_NAME",
            "MODEL_NAME",
        ],
    },
    "tutorlib.training": {
        "tutorlib.translation.training": [
            "TrainResult",
            "TrainState",
            "translation_loss",
            "learning_rate",
            "build_vocabs",
            "make_optimizer",
            "train",
            "plot_history",
        ],
        "tutorlib.translation.checkpoints": [
            "CheckpointError",
            "pick_device",
            "save_model",
            "load_checkpoint",
            "read_checkpoint",
            "CHECKPOINT_NAME",
            "MODEL_NAME",
        ],
    },
    "tutorlib.data": {
        "tutorlib.translation.data": [
            "PAD",
            "BOS",
            "EOS",
            "UNK",
            "SPECIALS",
            "PAD_ID",
            "BOS_ID",
            "EOS_ID",
            "UNK_ID",
            "tokenize",
            "detokenize",
            "is_punctuation",
            "Vocab",
            "Batch",
            "make_batches",
            "fits",
            "load_tatoeba",
        ],
        "tutorlib.translation.phrasebook": ["phrasebook", "held_out", "SPLIT_SIZES"],
    },
    "tutorlib.phrasebook": {
        "tutorlib.translation.phrasebook": [
            "phrasebook",
            "held_out",
            "SPLIT_SIZES",
            "english_words",
            "render",
            "NP",
            "Pron",
            "Name",
            "Sentence",
            "Compound",
            "Phrase",
        ],
        "tutorlib.translation.phrasebook.lexicon": ["PHRASES", "NOUNS", "VERBS", "ADJECTIVE"],
        "tutorlib.translation.phrasebook.splits": ["_EXAMPLES", "_small_templates"],
    },
    "tutorlib.config": {
        "tutorlib.translation.config": ["TranslatorConfig", "PRESETS", "PRETRAINED_PATH"]
    },
    "tutorlib.__main__": {"tutorlib.translation.cli": ["main", "split_sentences", "_pairs"]},
}


@pytest.mark.parametrize("old", sorted(MOVED))
def test_old_modules_reexport_the_same_objects(old):
    module = importlib.import_module(old)
    for new, names in MOVED[old].items():
        home = importlib.import_module(new)
        for name in names:
            assert getattr(module, name) is getattr(home, name), f"{old}.{name} is not {new}.{name}"
    for name in getattr(module, "__all__", []):
        assert hasattr(module, name), f"{old}.__all__ names {name}, which it lacks"


def test_the_old_private_checkpoint_helpers_are_the_public_ones():
    """tutorlib.training imported translator's _atomic_save, _model_state, _model_from_state."""
    from tutorlib import training, translator
    from tutorlib.translation import checkpoints

    for module in (training, translator):
        assert module._atomic_save is checkpoints.atomic_save
        assert module._model_state is checkpoints.model_state
        assert module._model_from_state is checkpoints.model_from_state
    assert translator._vocabs is translator.model_vocabs


def test_the_shipped_model_still_loads_from_its_old_path():
    """translator.pt stores plain data (weights_only), no class path: moving classes cannot hurt
    it."""
    from tutorlib.config import PRETRAINED_PATH
    from tutorlib.translation.model import Translator
    from tutorlib.translator import load_pretrained

    assert PRETRAINED_PATH.parts[-3:] == ("tutorlib", "pretrained", "translator.pt")
    assert PRETRAINED_PATH.is_file()
    model, src_vocab, tgt_vocab = load_pretrained(device="cpu")
    assert type(model) is Translator and model.src_vocab is src_vocab and len(tgt_vocab) > 4
