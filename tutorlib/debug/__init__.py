"""Checks that find the bugs that keep a Transformer from learning: the tools of chapter 12.

Each check takes plain callables or ``nn.Module`` s, so it works on any model,
not only the course's: a ``torch.nn.Transformer``, a Hugging Face model, your
own. Each returns a ``Report``: ``bool(report)`` is True when nothing is wrong,
and ``str(report)`` names what failed, where, and the likely cause::

    >>> report = check_causality(lambda x: decoder(x, memory, tgt_mask=mask), x)
    >>> if not report:
    ...     print(report)
    check_causality: FAILED. position 0 reads position 1 (...)

- ``check_causality(fn, x)``: does any position read a later one?
- ``check_padding(fn, x, lengths)``: does any real position read the padding?
- ``check_mask_convention(mask)``: True = attend, True = hide, or additive 0/-inf?
- ``check_determinism(fn, x)``: the same input twice, the same output? (dropout left on)
- ``check_positions(fn, x)``: does the output depend on the order of the inputs?
- ``check_shift(batch)``: is the decoder's input the target shifted right behind BOS?
- ``check_loss_padding(loss_fn, logits, targets)``: does the loss ignore padded positions?
- ``overfit_one_batch(model, batch)``: can the model learn one batch by heart?
- ``attention_entropy(weights)``: saturated (one-hot) or uniform heads, per layer and head;
- ``gradient_norms(model)``: dead (zero or missing) and exploding (or NaN) gradients, per layer;
- ``check_bleu(score, hypotheses, references)``: which BLEU was computed?

Shape letters as everywhere in tutorlib: ``B`` batch, ``T`` positions,
``D`` width, ``H`` heads. The perturbation checks run ``fn`` without
gradients and never change the model's train/eval mode: a check that finds
dropout still on says so.

The checks live in five modules along the chapter's seams, all re-exported
here (``from tutorlib.debug import check_causality`` is the name to use):

- ``tutorlib.debug.report``             ``Report``, what every check returns, and the helpers
  the checks share
- ``tutorlib.debug.probes``             the checks that change a model's input: determinism,
  causality, padding, positions
- ``tutorlib.debug.conventions``        masks, the teacher-forcing shift, the loss's padding, BLEU
- ``tutorlib.debug.training``           ``overfit_one_batch``, ``gradient_norms``
- ``tutorlib.debug.attention_weights``  ``attention_maps``, ``attention_entropy``

One more module asks another question, what the heads of a model that *does* learn
learned, and is imported from its own home (``from tutorlib.debug import heads``):

- ``tutorlib.debug.heads``              ``ablate_heads`` and ``ablation_costs`` (what removing a
  head breaks), ``pattern_scores`` (where its weights point), ``train_induction`` (a toy
  model that grows a previous-token and an induction head)
"""

from .attention_weights import attention_entropy, attention_maps
from .conventions import check_bleu, check_loss_padding, check_mask_convention, check_shift
from .probes import check_causality, check_determinism, check_padding, check_positions
from .report import Report
from .training import gradient_norms, overfit_one_batch

__all__ = [
    "Report",
    "check_causality",
    "check_padding",
    "check_mask_convention",
    "check_determinism",
    "check_positions",
    "check_shift",
    "check_loss_padding",
    "overfit_one_batch",
    "attention_maps",
    "attention_entropy",
    "gradient_norms",
    "check_bleu",
]
