"""Decoding a GPT (chapter 13): greedy and sampling with a KV cache, and translating sentences.

``filter_logits`` is chapter 10's temperature, top-k and top-p, batched;
``generate`` continues prompts (``[src] <sep>``) with a ``KVCache``;
``cross_attention_pattern`` recovers the cross-attention block from the
self-attention weights; ``translate`` translates sentences with the
translator's guards (the length budget, the repetition guard) and copies
unknown words. Decodes the model it is given: ``tutorlib.gpt.translate``
(``tutorlib.translation.shipped``) defaults to the shipped GPT.

Shape letters: ``B`` batch, ``P`` the prompt's length, ``S`` source length,
``T`` target length, ``N`` blocks, ``H`` heads, ``V`` the vocabulary size.

Derived in chapter 13 (The translator as a GPT).
"""

from __future__ import annotations

import functools
import re
import unicodedata

import torch

from ...checks import a_or_an, finite_number, model_hint, whole_number
from ..cache import KVCache
from ..copying import (
    UNKNOWN_GENDER,
    copy_positions,
    listed_genders,
    unknown_gender_notice,
    with_guessed_genders,
)
from ..data import BOS_ID, PAD_ID, Vocab, detokenize, is_punctuation, tokenize
from ..guards import MAX_RUN, NO_REPEAT_NGRAM, check_guard, guard, output_budget
from ..phrasebook.grammar import english_words, portuguese_words
from ..phrasebook.lexicon import CONTRACT, DETERMINERS, RELATION_FEMININE
from ..sentences import as_sentences, not_english, split_texts, tell
from ..typos import read_typos
from .model import GPT
from .tokens import SubwordTokenizer, WordTokenizer

__all__ = ["filter_logits", "generate", "kv_cache_bytes", "cross_attention_pattern", "translate"]

# These functions decode the GPT they are given: the shipped one is supplied above the checkpoints
# (tutorlib.translation.shipped, what tutorlib.gpt.translate gives).
NO_MODEL = (
    "no model given: pass a GPT (tutorlib.gpt.load_pretrained() reads the shipped one), or call "
    "tutorlib.gpt.translate, which defaults to it"
)


def filter_logits(
    logits: torch.Tensor,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
) -> torch.Tensor:
    """``logits (R, V)`` divided by ``temperature``, with the tokens outside top-k and top-p set to
    ``-inf``.

    Chapter 10's rules: top-k keeps the ``k`` largest; top-p keeps the fewest
    most probable tokens whose probabilities reach ``p``. The most probable
    token always stays, so a row never loses every token.

    Derived in chapter 10 (Translating and evaluating); batched for chapter 13.
    """
    temperature = finite_number(
        "temperature", temperature, hint="above 0; 1 leaves the distribution as it is"
    )
    if temperature <= 0:
        raise ValueError(
            f"temperature must be above 0, got {temperature}: 0 would divide by zero "
            "(use greedy decoding, temperature=None, for the limit)"
        )
    z = logits / temperature
    if top_k is not None:
        k = min(whole_number("top_k", top_k, 1, hint="None keeps every token"), z.shape[-1])
        kth = z.topk(k, dim=-1).values[:, -1:]  # (R, 1): the k-th largest of each row
        z = z.masked_fill(z < kth, float("-inf"))
    if top_p is not None:
        top_p = finite_number("top_p", top_p, hint="a probability in (0, 1]")
        if not 0 < top_p <= 1:
            raise ValueError(f"top_p must be a probability in (0, 1], got {top_p}")
        p_sorted, order = torch.softmax(z, dim=-1).sort(dim=-1, descending=True)  # (R, V) each
        # (R, V): the tokens after the ones that already reach p, in sorted order
        drop_sorted = p_sorted.cumsum(dim=-1) - p_sorted >= top_p
        # (R, V) back in vocabulary order
        drop = torch.zeros_like(drop_sorted).scatter(1, order, drop_sorted)
        z = z.masked_fill(drop, float("-inf"))
    return z


@torch.no_grad()
def generate(
    model: GPT,
    prompts: torch.Tensor,
    budget,
    *,
    temperature: float | None = None,
    top_k: int | None = None,
    top_p: float | None = None,
    generator: torch.Generator | None = None,
    use_cache: bool = True,
    max_run: int | None = MAX_RUN,
    no_repeat_ngram: int | None = NO_REPEAT_NGRAM,
) -> list[list[int]]:
    """Continue ``prompts (B, P)`` (each ``[src] <sep>``, all of one length P) until ``<eos>`` or
    ``budget`` tokens.

    ``temperature=None`` is greedy decoding; a number samples (with
    ``top_k``, ``top_p``) from ``generator`` (seed it: the same seed, the
    same draws). With ``use_cache`` the prompt is read once and every later
    step reads one position (a ``KVCache``); without, every step recomputes
    the whole sequence; the tokens are the same. ``budget`` is an int or
    ``(B,)``: the most tokens a row may write (``output_budget``). The
    translator's repetition guard (``max_run``, ``no_repeat_ngram``) acts
    before the choice. Returns each row's new tokens without ``<eos>``.

    Derived in chapter 13 (The translator as a GPT).
    """
    check_guard(max_run, no_repeat_ngram)
    if temperature is None and (top_k is not None or top_p is not None):
        raise ValueError(
            "top_k and top_p shape sampling: give a temperature (1.0 leaves it as it is)"
        )
    model.eval()
    tok = model.tokenizer if model.vocab is not None else WordTokenizer
    B, P = prompts.shape
    device = prompts.device
    budget = torch.as_tensor(budget, device=device).expand(B)  # (B,)
    if int(budget.max()) < 1:
        raise ValueError(f"the budget leaves no token to write (budget {budget.tolist()})")
    model._check_length(P + int(budget.max()) - 1)  # the last token written is never read
    tokens = prompts  # (B, P + n): the prompt and what is written so far
    finished = torch.zeros(B, dtype=torch.bool, device=device)
    cache = KVCache() if use_cache else None
    for step in range(int(budget.max())):
        if cache is None:
            logits = model(tokens)[:, -1]  # (B, P + n, V) -> (B, V)
        else:  # the prompt at once, then one new position per step
            logits = model.forward_step(tokens if step == 0 else tokens[:, -1:], cache)[:, -1]
        log_probs = torch.log_softmax(logits.float(), dim=-1)  # (B, V)
        # the guard reads <sep> and what follows it, as the translator's reads <bos> and its words
        # a repeat the source holds is a copy, not a loop ("100000"): let it through
        log_probs = guard(
            log_probs, tokens[:, P - 1 :], max_run, no_repeat_ngram, tok.eos_id, prompts[:, :-1]
        )
        if temperature is None:
            next_token = log_probs.argmax(dim=-1)  # (B,)
        else:
            probs = torch.softmax(filter_logits(log_probs, temperature, top_k, top_p), dim=-1)
            next_token = torch.multinomial(probs, 1, generator=generator)[:, 0]  # (B, V) -> (B,)
        next_token = next_token.masked_fill(finished, tok.pad_id)  # a finished row only pads
        tokens = torch.cat([tokens, next_token[:, None]], dim=1)
        finished |= (next_token == tok.eos_id) | (step + 1 >= budget)
        if finished.all():
            break
    out = []
    for row in tokens[:, P:].tolist():
        ids = []
        for i in row:
            if i == tok.eos_id:
                break
            if i != tok.pad_id:
                ids.append(i)
        out.append(ids)
    return out


def kv_cache_bytes(cache: KVCache) -> int:
    """The memory a ``KVCache`` holds: every block's keys and values, ``2 x N x (B, H, t, Dh)``
    numbers.

    Derived in chapter 13 (The translator as a GPT).
    """
    return sum(
        t.numel() * t.element_size()
        for layer in cache.layers
        for part in layer.values()
        for t in part.values()
        if isinstance(t, torch.Tensor)  # a rolling window's position counter is no memory here
    )


@torch.no_grad()
def cross_attention_pattern(model: GPT, src_ids, tgt_ids) -> torch.Tensor:
    """Cross-attention recovered from self-attention: ``(N, H, T, S)``, how each target step read
    the source.

    One pass over ``[src] <sep> [tgt]``; in every block's weights ``(H, L, L)``
    the rows of the positions that wrote the target tokens (``<sep>`` wrote
    ``tgt[0]``, position ``S + t`` wrote ``tgt[t]``) and the columns of the
    source: the block a translator's cross-attention would hold. A row sums
    to at most 1: the rest of its weight went to ``<sep>`` and to the
    Portuguese written before. End ``tgt_ids`` with ``<eos>`` to see the
    step that ended.

    Derived in chapter 13 (The translator as a GPT).
    """
    src_ids = [int(i) for i in src_ids]
    tgt_ids = [int(i) for i in tgt_ids]
    S, T = len(src_ids), len(tgt_ids)
    if not S or not T:
        raise ValueError(f"cross_attention_pattern needs source and target ids, got S={S}, T={T}")
    model.eval()
    device = next(model.parameters()).device
    sep = model.tokenizer.sep_id if model.vocab is not None else BOS_ID
    tokens = torch.tensor([[*src_ids, sep, *tgt_ids[:-1]]], device=device)  # (1, S + T)
    _, weights = model(tokens, need_weights=True)  # N x (1, H, S + T, S + T)
    # (N, H, L, L) -> rows S .. S + T - 1 (the target's writers), columns 0 .. S - 1 (the source)
    return torch.cat(weights)[:, :, S : S + T, :S].float().cpu()


# --- translating sentences
# --------------------------------------------------------------------------


def _check_sentence(
    i: int, sentence, model: GPT, typos: bool = True
) -> tuple[list[str], list[int], list] | None:
    """``(the tokens as typed, their ids, notices)`` of one source sentence, None when it holds
    no words; a ``ValueError`` says why it cannot be translated. A typo is read as the word it
    is one edit from (``read_typos``, after the language check), as the translator reads it."""
    if not isinstance(sentence, str):
        raise ValueError(
            f"sentences[{i}] is a {type(sentence).__name__} ({sentence!r:.60}), expected a string "
            "of "
            "English words"
        )
    typed = tokenize(sentence, lower=False)
    words = [t.lower() for t in typed]
    if not words or all(is_punctuation(w) for w in words):
        return None  # blank, or punctuation alone: nothing to translate, as the translator says
    limit = model.config.max_source_len
    tok = model.tokenizer
    if isinstance(tok, SubwordTokenizer):  # nothing is unknown: every text has its tokens
        _bpe_ids(i, sentence, model)  # too long is said before anything else
        _check_language(i, words)
        sentence, notices = read_typos(sentence) if typos else (sentence, [])  # once checked
        return tokenize(sentence, lower=False), _bpe_ids(i, sentence, model), notices
    if len(words) > limit:
        raise ValueError(
            f"sentences[{i}] has {len(words)} tokens; the prompt (the source and <sep>) and the "
            "translation "
            f"share the model's max_len={model.config.max_len} positions, so a source may have at "
            "most "
            f"{limit} (GPTConfig.max_source_len): shorten or split it: {sentence[:60]!r}"
        )
    vocab = model.vocab
    real = [w for w in words if not is_punctuation(w)]
    if not any(w in vocab for w in real):
        raise ValueError(
            f"sentences[{i}]: none of its words are in the model's vocabulary "
            f"({', '.join(real[:5])}"
            f"{' ...' if len(real) > 5 else ''}): is it English? The model would only make up words"
        )
    _check_language(i, words)
    sentence, notices = read_typos(sentence) if typos else (sentence, [])
    typed = tokenize(sentence, lower=False)  # one word for one: the same length
    ids = vocab.encode([t.lower() for t in typed], warn_unknown=False)
    return typed, with_guessed_genders(typed, ids, vocab), notices  # "my friend Priya": f


def _bpe_ids(i: int, sentence: str, model: GPT) -> list[int]:
    """The BPE ids of one sentence; a ``ValueError`` when it leaves the translation no room."""
    tok, limit = model.tokenizer, model.config.max_source_len
    ids = tok.encode(tok.normalize(sentence))
    if len(ids) > limit:
        raise ValueError(
            f"sentences[{i}] is {len(ids)} BPE tokens long; the prompt (the source and <sep>) "
            f"and the translation share the model's max_len={model.config.max_len} positions, "
            f"so a source may have at most {limit} (GPTConfig.max_source_len): shorten or "
            f"split it: {sentence[:60]!r}"
        )
    return ids


def _check_language(i: int, words: list[str]) -> None:
    """A ``ValueError`` unless the sentence reads as English, by the translator's rule
    (``not_english``): a GPT on BPE tokens has a token for every text, and one on words a
    vocabulary of both languages, so neither would notice Cyrillic, emoji or Portuguese: it
    would write fluent nonsense (issue 36)."""
    real = [w for w in words if not is_punctuation(w)]
    problem = not_english(
        real,
        _phrasebook_words(),
        _portuguese_words(),
        "English words the model learned",
        "the model",
    )
    if problem:
        raise ValueError(f"sentences[{i}]: {problem}")


@functools.lru_cache(maxsize=1)
def _phrasebook_words() -> frozenset:
    return frozenset(english_words())


@functools.lru_cache(maxsize=1)
def _portuguese_words() -> frozenset:
    return frozenset(portuguese_words())


def _with_names(typed: list[str], text: str) -> str:
    """``text`` with the capitals of the names typed in the source: a typed word with a capital
    whose lower case is no word of the phrasebook ("Ana", not "The" or "I") is written as it was
    typed."""
    known = _phrasebook_words()
    names = {t.lower(): t for t in typed if t != t.lower() and t.lower() not in known}
    if not names:
        return text
    return _WORD.sub(lambda m: names.get(m.group(0), m.group(0)), text)


# A word as tokenize keeps it: letters, with an apostrophe or a hyphen inside ("o'brien",
# "ana-maria"), so that a name of two parts gets its capitals back whole.
# A combining mark belongs to its letter ("i̇", the lower case of Turkish "İ").
_WORD = re.compile(r"(?:[^\W_]|[\u0300-\u036f])+(?:['-](?:[^\W_]|[\u0300-\u036f])+)*")


def _missing_copies(typed: list[str], text: str) -> list[str]:
    """The words of the source, as typed, that a translation must copy and ``text`` does not
    hold whole: a number ("4521", "75,000", "3.5") or a word that is no word of the phrasebook
    (a name, in any case: "Oluwaseun", "kalani"; "Kalani's" is checked as "Kalani"). A GPT on
    BPE tokens spells them, and can drop a letter or stop early ("Oluwaseun" -> *oluu*); the
    translator says which words it drops, and so must the GPT (issue 36). A name that is also
    a phrasebook word ("Will", "Rose") is not checked."""
    known, lower = _phrasebook_words(), text.lower()
    wanted = []
    for t in typed:
        core = _POSSESSIVE.sub("", t)
        if _NUMBER.fullmatch(core) or (_WORD.fullmatch(core) and core.lower() not in known):
            wanted.append(core)
    return [
        t
        for t in dict.fromkeys(wanted)
        if not re.search(rf"(?<![\w'-]){re.escape(t.lower())}(?![\w'-])", lower)
    ]


_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")  # 4521, 75,000, 3.5
_POSSESSIVE = re.compile(r"['’]s$", re.IGNORECASE)  # "Kalani's": the name is "Kalani"


def _missing_notice(missing: list[str]) -> str:
    quoted = ", ".join(f'"{t}"' for t in missing)
    verb, them = ("is", "it") if len(missing) == 1 else ("are", "them")
    return (
        f"{quoted} {verb} not in the translation: the model may have misspelled, dropped or "
        f"replaced {them}"
    )


def _with_copies(model: GPT, typed: list[str], src: list[int], hyp: list[int]) -> str:
    """The translation's text; an output ``<unk>`` becomes the unknown source word its step read
    most, of those not copied yet.

    Chapter 10's copy of unknown words, with the cross-attention pattern
    (last block, heads averaged) as the alignment, a source word not copied yet first
    (``copying.copy_position``); in a gendered vocabulary an output
    ``<unk>``, ``<unk:f>`` or ``<unk:m>`` looks first at the uncopied source words of its own
    kind, then at the other uncopied ones; a name of several words is copied whole and in order
    (``copying.copy_positions``, the encoder–decoder's rules). A
    GPT on BPE tokens has no ``<unk>``: it spells names out itself, in the lower case of its
    training text, and the names get their typed capitals back (``_with_names``).
    """
    return _translation(model, typed, src, hyp)[0]


def _translation(model: GPT, typed: list[str], src: list[int], hyp: list[int]) -> tuple[str, str]:
    """``_with_copies``'s text, and the notice for a name of no known gender (``_gender_notice``)
    read off the same copies; no notice from a GPT on BPE."""
    if isinstance(model.tokenizer, SubwordTokenizer):
        return _with_names(typed, model.tokenizer.decode(hyp)), ""
    copied = _copied(model, src, hyp)
    return _copy_text(model, typed, hyp, copied), _gender_notice(model, typed, src, hyp, copied)


# The words of a relation before a name that change with the person's gender, masculine ->
# feminine: the possessives ("meu amigo" / "minha amiga"), the article and its contractions
# ("do meu amigo" / "da minha amiga"), then the relations' nouns.
_FEMININE_OF = {
    **{m: f for m, f, _, _ in (DETERMINERS["my"], DETERMINERS["your"])},
    DETERMINERS["the"][0]: DETERMINERS["the"][1],
    **{forms["o"]: forms["a"] for forms in CONTRACT.values()},
}
_MASCULINE_OF = {f: m for m, f in _FEMININE_OF.items()}
_BEFORE_RELATION = {**_FEMININE_OF, **_MASCULINE_OF}
_RELATION_FORMS = {  # relation -> (masculine, feminine): "friend" -> ("amigo", "amiga")
    relation: (UNKNOWN_GENDER[relation], feminine)
    for relation, feminine in RELATION_FEMININE.items()
}


def _disagreement(text: str, typed: list[str], genders: dict, held) -> tuple | None:
    """``(j, where, word)`` for the first name of ``genders`` (``copying.listed_genders``; not
    in ``held``) that ``text``, a GPT on BPE's translation, writes after its relation in the
    other gender: ``text[:where] + word`` is the translation up to the first word of the
    relation that disagrees, and that word in the list's gender ("vi meu professor thandiwe"
    for "Thandiwe", a woman's name on the list: "vi minha"). The name is looked for where it is
    written right after the relation's noun, of either gender (not "vi", the verb, for "my
    friend Vi"; a final "'s" left out). None when every relation agrees, or none is written
    right before its name (a misspelled name is not looked for)."""
    words = list(_WORD.finditer(text))
    plain = [_name_key(w.group(0)) for w in words]
    for j, (gender, relation) in genders.items():
        if j in held:
            continue
        name, forms = _name_key(typed[j]), _RELATION_FORMS[relation]
        n = next(
            (k - 1 for k in range(1, len(plain)) if plain[k] == name and plain[k - 1] in forms), -1
        )
        if n < 0:
            continue
        chain = [n]  # the noun, and the possessive and article before it
        while chain[0] > 0 and plain[chain[0] - 1] in _BEFORE_RELATION and len(chain) < 3:
            chain.insert(0, chain[0] - 1)
        for k in chain:
            word = plain[k]
            if k == n:
                right = forms[gender == "f"]
            else:
                right = (_FEMININE_OF if gender == "f" else _MASCULINE_OF).get(word, word)
            if word != right:
                return j, words[k].start(), right
    return None


def _name_key(word: str) -> str:
    """A word as a name is compared: NFC, lower case, a final "'s" left out."""
    return unicodedata.normalize("NFC", _POSSESSIVE.sub("", word)).lower()


def _agreeing(model: GPT, typed: list[str], src: list[int], hyp: list[int], budget: int, **how):
    """``hyp``, a GPT on BPE's translation of ``src``, held to the genders the list of names
    gives (``copying.listed_genders``): where it writes the relation before such a name in the
    other gender ("My teacher Thandiwe" -> *meu professor*), the model writes on from its
    translation up to that word, with the word in the list's gender (*minha*); once per name
    (what the model writes after the word is its own, right or wrong). ``how``: ``generate``'s
    settings. A word model reads the gender in its input instead."""
    genders = listed_genders(typed)
    held: set[int] = set()
    tok = model.tokenizer
    while genders:
        text = tok.decode(hyp)
        found = _disagreement(text, typed, genders, held)
        if found is None:
            break
        j, where, word = found
        held.add(j)
        written = tok.encode(text[:where] + word)
        if len(written) >= budget:
            break
        device = next(model.parameters()).device
        prompt = torch.tensor([src + [tok.sep_id] + written], device=device)
        hyp = written + generate(model, prompt, budget - len(written), **how)[0]
    return hyp


def _copied(model: GPT, src: list[int], hyp: list[int]) -> dict[int, int]:
    """{output position: the source position its ``<unk>`` copies}, for a GPT on words."""
    unk = model.vocab.unknown_ids  # <unk>, and <unk:f> / <unk:m> in a gendered vocabulary
    unknown_at = [j for j, i in enumerate(src) if i in unk]
    if not unknown_at:
        return {}
    weights = None
    if unk.intersection(hyp):
        weights = cross_attention_pattern(model, src, hyp)[-1].mean(dim=0)  # (H, T, S) -> (T, S)
    # one table for both sides: an output <unk:f> copies an uncopied source <unk:f> when there
    # is one, an <unk> a source <unk> ("Lena and Tomas": <unk> and <unk:m>); any word not
    # copied yet before a copied one ("Kalani has 7 cats": 7 for the second <unk>); a name of
    # several words whole and in order
    return copy_positions(
        weights,
        [i in unk for i in hyp],
        unknown_at,
        own_kind=lambda t: [j for j in unknown_at if src[j] == hyp[t]],
    )


def _copy_text(model: GPT, typed: list[str], hyp: list[int], copied: dict[int, int]) -> str:
    unk = model.vocab.unknown_ids
    words = []
    for t, i in enumerate(hyp):
        if t in copied:
            words.append(typed[copied[t]])
        elif i not in unk and i not in (PAD_ID, BOS_ID):
            words.append(model.vocab.id_to_token(i))
    return detokenize(words)


def _gender_notice(
    model: GPT, typed: list[str], src: list[int], hyp: list[int], copied: dict[int, int]
) -> str:
    """The translator's notice for a name of no known gender after "friend" (``copying.
    unknown_gender_notice``), for a GPT on words with a gendered vocabulary; a GPT on BPE reads
    the name's letters and guesses, and says nothing."""
    vocab = model.vocab
    if not (isinstance(vocab, Vocab) and vocab.gendered):
        return ""
    unknown_at = [j for j, i in enumerate(src) if i in vocab.unknown_ids]
    return unknown_gender_notice(typed, unknown_at, [vocab.id_to_token(i) for i in hyp], copied)


def translate(
    sentences,
    model: GPT | None = None,
    *,
    temperature: float | None = None,
    top_k: int | None = None,
    top_p: float | None = None,
    seed: int = 0,
    max_len: int | None = None,
    batch_size: int = 64,
    use_cache: bool = True,
    max_run: int | None = MAX_RUN,
    no_repeat_ngram: int | None = NO_REPEAT_NGRAM,
    skip_errors: bool = False,
    on_notice=None,
    typos: bool = True,
    genders: bool = True,
):
    """Translate English sentences with a GPT: a list of strings -> a list of strings (one string ->
    one).

    ``model`` is the GPT to use (``tutorlib.gpt.translate`` defaults to the
    shipped one, ``load_pretrained``). Greedy by
    default; a ``temperature`` (with ``top_k``, ``top_p``) samples, seeded by
    ``seed``. Each translation has at most ``2 S + 5`` tokens for ``S``
    source tokens (``output_budget``), capped by ``max_len`` and by the
    positions the prompt leaves; the repetition guard is the translator's.
    Sentences of one length are decoded together (no padding inside a
    prompt). An unknown word the model writes as ``<unk>`` is copied from
    the source word it read most. A text of several sentences ("Thank you.
    Goodbye.", "I am tired.she is happy.") is split as the translator splits
    it (``split_sentences``), each sentence translated alone and the
    translations joined. A blank sentence, or one of punctuation alone,
    translates to ``""``. A non-string, one longer than
    ``GPTConfig.max_source_len`` or one without a known word is a
    ``ValueError`` naming it; with ``skip_errors`` such a text translates to
    ``""`` and the others go on (``evaluate`` scores it as empty). A typo one edit from a
    word the model learned ("the techer") is read as that word (``read_typos``), and said as
    the translator says its notices: ``on_notice(index, message)``, by default
    ``warnings.warn`` ("sentence 0 ('The techer ...'): read 'techer' as 'teacher'");
    ``typos=False`` reads every word as typed (``evaluate`` does). A name or a number of the
    source (a word that is no phrasebook word, or digits) that the translation does not hold
    whole is said the same way: '"Oluwaseun" is not in the translation ...' (``evaluate``
    scores it without a word). A GPT on BPE that writes the relation before a name of the
    list in the other gender ("my teacher Thandiwe" -> *meu professor*) writes on from that
    word in the list's gender (``_agreeing``: *minha professora Thandiwe*); ``genders=False``
    leaves it the gender it read from the name's letters (chapter 14 measures both).

    Derived in chapter 13 (The translator as a GPT).
    """
    sentences, single = as_sentences(sentences)
    batch_size = whole_number("batch_size", batch_size, 1, hint="sentences decoded together")
    seed = whole_number("seed", seed, 0)
    if max_len is not None:
        whole_number("max_len", max_len, 1, hint="the most tokens a translation may have")
    if model is None:
        raise ValueError(NO_MODEL)
    if not isinstance(model, GPT):
        raise ValueError(
            f"tutorlib.gpt.translate needs a GPT, got {a_or_an(type(model).__name__)}"
            f"{model_hint(model, GPT)}; the encoder-decoder translator translates with "
            "tutorlib.translator.translate(sentences, model)"
        )
    if model.vocab is None:
        model.tokenizer  # noqa: B018 (raises the error that says what to pass)
    # A text of several sentences is translated sentence by sentence and joined, as the
    # translator and the command line do: pieces[k] = (the text's index, one sentence).
    pieces, owners = split_texts(sentences)
    checked, failed = [], set()
    for i, sentence in pieces:
        try:
            checked.append(_check_sentence(i, sentence, model, typos))
        except ValueError:
            if not skip_errors:
                raise
            checked.append(None)
            failed.add(i)  # the whole text translates to "", as evaluate scores it
    sep = model.tokenizer.sep_id
    device = next(model.parameters()).device
    generator = None
    if temperature is not None:  # one seeded generator for the whole call
        generator = torch.Generator(device=device).manual_seed(seed)
    by_length: dict[int, list[int]] = {}
    for i, item in enumerate(checked):
        if item is not None:
            by_length.setdefault(len(item[1]), []).append(i)
    texts = [""] * len(pieces)
    for S in sorted(by_length):
        budget = output_budget(
            S, model.config.max_len - S, max_len
        )  # what the prompt's S + 1 leave
        rows = by_length[S]
        for start in range(0, len(rows), batch_size):
            chunk = rows[start : start + batch_size]
            prompts = torch.tensor(
                [checked[i][1] + [sep] for i in chunk], device=device
            )  # (B, S + 1)
            how = dict(
                temperature=temperature,
                top_k=top_k,
                top_p=top_p,
                generator=generator,
                use_cache=use_cache,
                max_run=max_run,
                no_repeat_ngram=no_repeat_ngram,
            )
            hyps = generate(model, prompts, budget, **how)
            for i, hyp in zip(chunk, hyps):
                typed, src = checked[i][0], checked[i][1]
                if genders and isinstance(model.tokenizer, SubwordTokenizer):
                    again = how
                    if generator is not None:  # a rewrite draws from a generator of its own,
                        # so that the other sentences' draws do not depend on it
                        own = torch.Generator(device=device).manual_seed(seed + 1 + i)
                        again = dict(how, generator=own)
                    hyp = _agreeing(model, typed, src, hyp, budget, **again)
                texts[i], gender = _translation(model, typed, src, hyp)
                missing = _missing_copies(typed, texts[i])
                if missing:  # said with the typos, in the one notice of the text
                    checked[i][2].append(_missing_notice(missing))
                if gender:
                    checked[i][2].append(gender)
    joined = [
        "" if i in failed else " ".join(texts[k] for k in owner if texts[k])
        for i, owner in enumerate(owners)
    ]
    for i, owner in enumerate(owners):  # one notice per text, as the translator's
        said = [
            (f"sentence {n}: " if len(owner) > 1 else "") + "; ".join(checked[k][2])
            for n, k in enumerate(owner, start=1)
            if checked[k] is not None and checked[k][2]
        ]
        if said and i not in failed:
            tell(i, sentences[i], "; ".join(said), on_notice)
    return joined[0] if single else joined
