"""Interactive explorers for Jupyter, Colab and Binder.

Each explorer is two parts: a pure function, its *view*, that computes what is
shown (tested without a browser), and a thin ipywidgets wrapper that calls it
whenever a control moves. The wrapper also carries the explorer's static twin
(:mod:`tutorlib.explorers.static`): the same view worked out for every state of
the controls, which the published book shows and switches without a kernel.
Both sets of controls are built from one declaration, a list of
:class:`~tutorlib.explorers.controls.Spec`, and :data:`REGISTRY` names each
explorer's chapter and controls (:mod:`tutorlib.explorers.controls`).

=====================  ==========================================  =========  ===============
explorer               its pure function                           chapter    module
=====================  ==========================================  =========  ===============
temperature_explorer   temperature_view(scores, labels, τ)         3          softmax
saturation_explorer    saturation_view(d_k, scaled)                4          softmax
attention_explorer     attention_view(q, k, query_labels, ...)     4          attention
head_explorer          head_view(weights, head, query_labels, ...) 5          attention
mask_editor            mask_view(n_words, n_pad, causal)           6          attention
translator_explorer    translator_view(model, sentence, ...)       10         encoder_decoder
gpt_attention_explorer gpt_attention_view(model, sentence, ...)    13         decoder_only
kv_cache_explorer      kv_cache_calculator_view(model, ...)        15         kv_cache
head_ablation_explorer head_ablation_view(model, sentence, ...)    16         heads
paged_cache_explorer   paged_cache_view(prompt_lengths, ...)       17         paged_cache
=====================  ==========================================  =========  ===============

Every view returns the numbers it shows and the HTML that shows them. The
HTML uses the course's colour-blind-safe colours (Okabe-Ito blue for bars,
cividis for heatmaps) and never relies on colour alone: every weight is
written out, the selected row is marked with ▶ as well as outlined, and hidden
cells carry ✕ as well as a hatched background.

``kv_cache_view(layers, heads, kv_heads, d_head, context, ...)`` computes the KV cache of any
shape; the calculator of chapter 15 shows it for the published shapes.

The package's modules, each importing only those above it:

- ``static``     the static twin: every state of an explorer's view, switched in the page
- ``controls``   :class:`Spec` (a control declared once), :data:`REGISTRY` and the
  ``@explorer(chapter, **controls)`` decorator that fills it
- ``widgets``    what an explorer is built from: ``explorer_box``, ``live_controls``,
  ``following_view`` and the model explorers' ``sentence_spec``, ``head_spec``, ``head_index``
- one module per family of explorers (the table's last column); importing this package imports
  them all, which files every explorer in :data:`REGISTRY`, and offers their names here

Derived in chapter 3 (Softmax); chapters 4 to 6, 10, 13 and 15 to 17 add the others.
"""

from __future__ import annotations

from .attention import (
    attention_explorer,
    attention_view,
    head_explorer,
    head_view,
    mask_editor,
    mask_view,
)
from .controls import REGISTRY, Spec, explorer
from .decoder_only import GPT_BOOK_SENTENCES, gpt_attention_explorer, gpt_attention_view
from .encoder_decoder import BOOK_SENTENCES, translator_explorer, translator_view
from .heads import HEADS_BOOK_SENTENCES, head_ablation_explorer, head_ablation_view
from .kv_cache import (
    format_bytes,
    kv_cache_calculator_view,
    kv_cache_explorer,
    kv_cache_view,
)
from .paged_cache import BLOCK_CHOICES, paged_cache_explorer, paged_cache_view
from .softmax import (
    D_K_STEPS,
    saturation_explorer,
    saturation_view,
    temperature_explorer,
    temperature_steps,
    temperature_view,
)

__all__ = [
    "temperature_view",
    "temperature_explorer",
    "saturation_view",
    "saturation_explorer",
    "attention_view",
    "attention_explorer",
    "head_view",
    "head_explorer",
    "mask_view",
    "mask_editor",
    "translator_view",
    "translator_explorer",
    "gpt_attention_view",
    "gpt_attention_explorer",
    "kv_cache_view",
    "kv_cache_calculator_view",
    "kv_cache_explorer",
    "head_ablation_view",
    "head_ablation_explorer",
    "format_bytes",
    "paged_cache_view",
    "paged_cache_explorer",
    "BLOCK_CHOICES",
    "temperature_steps",
    "D_K_STEPS",
    "BOOK_SENTENCES",
    "GPT_BOOK_SENTENCES",
    "HEADS_BOOK_SENTENCES",
    "REGISTRY",
    "Spec",
    "explorer",
]
