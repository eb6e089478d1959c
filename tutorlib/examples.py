"""The worked numbers of the course's source material, in one place.

Chapters import these instead of re-typing them, so a number is written once
and every chapter that uses it agrees. Where a source gave no numbers (its
figures were images) the course chose its own and says so.

Derived in chapters 1 (Why attention) to 7 (Cross-attention).
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "COINS",
    "DOT_PRODUCT_PAIRS",
    "FRUIT_SIMILARITIES",
    "WINDOWS_VECTORS",
    "SPREADSHEET",
    "QUICK_BROWN_FOX",
    "THIS_IS_BOOK",
    "LONG_SENTENCE",
    "YOUR_CAT",
]

#: Chapter 1: attention as borrowing coins. A has 416 coins and needs 500 more for a
#: phone. B has saved 1000 and would lend at most 100; C has saved 250 and
#: would lend at most 150. "Relevance" of a lender = savings / what A needs.
COINS = {
    "has": 416,
    "needs": 500,
    "lenders": {"B": {"saved": 1000, "lends": 100}, "C": {"saved": 250, "lends": 150}},
}

#: Chapter 2: the slide deck's two dot products, (1,4)·(0,3) = 12 and (1,4)·(3,0) = 3.
DOT_PRODUCT_PAIRS = [((1, 4), (0, 3)), ((1, 4), (3, 0))]

#: Chapter 3: similarities of "orange" to other words, as in the slide deck.
#: Plain normalisation of (1, 0.71) gives 0.58/0.42; softmax gives 0.57/0.43;
#: (1, -1) cannot be normalised plainly (the sum is 0) and softmax gives 0.88/0.12.
FRUIT_SIMILARITIES = {
    "orange vs apple": {"orange": 1.0, "apple": 0.71},
    "orange vs motorcycle": {"orange": 1.0, "motorcycle": -1.0},
}

#: Chapter 2: the slide deck's 2-D vectors for "I closed the windows".
WINDOWS_VECTORS = {"I": (1.0, 0.0), "closed": (1.0, 1.0), "the": (0.0, 1.0), "windows": (2.0, 0.0)}

#: Chapters 2 and 7: the spreadsheet video's cross-attention example, English
#: "I am happy" (keys and values) and Portuguese "sou feliz" (queries), in 2-D.
#: The video showed its numbers only on screen; these were chosen by the
#: course to reproduce the weights it reads out: "sou" takes about 30 % from
#: "I" and 63 % from "am" (the video reads 64 %), "feliz" about 70 % from "happy".
SPREADSHEET = {
    "english": {"I": (1.0, 0.5), "am": (1.5, 1.0), "happy": (-1.0, 1.0)},
    "portuguese": {"sou": (1.3, 0.8), "feliz": (-0.9, 0.9)},
}

#: Chapter 4: "The quick brown fox jumps" with d_model = 4 embeddings and the
#: 2-D query, key and value vectors the notes give for each word. Those are
#: projections of the embeddings by 0/1 matrices that pick features: Q takes
#: features 1 and 2, K the same two swapped, V features 3 and 4.
QUICK_BROWN_FOX = {
    "tokens": ["The", "quick", "brown", "fox", "jumps"],
    "embeddings": np.array(
        [
            [0.1, 0.2, 0.3, 0.4],
            [0.5, 0.6, 0.7, 0.8],
            [0.9, 1.0, 1.1, 1.2],
            [1.3, 1.4, 1.5, 1.6],
            [1.7, 1.8, 1.9, 2.0],
        ]
    ),
    "q": np.array([[0.1, 0.2], [0.5, 0.6], [0.9, 1.0], [1.3, 1.4], [1.7, 1.8]]),
    "k": np.array([[0.2, 0.1], [0.6, 0.5], [1.0, 0.9], [1.4, 1.3], [1.8, 1.7]]),
    "v": np.array([[0.3, 0.4], [0.7, 0.8], [1.1, 1.2], [1.5, 1.6], [1.9, 2.0]]),
}

#: Chapter 4: self-attention from scratch on "This is book" with d_model = 5
#: and d_k = d_v = 3. The blog post's own numbers were images; these are the
#: course's, small enough to multiply by hand. W_K is W_Q with one entry
#: changed (1.0 -> 1.5), so keys nearly equal queries and each word scores
#: itself highest, but only narrowly: that is this example, not a rule.
THIS_IS_BOOK = {
    "tokens": ["This", "is", "book"],
    "x": np.array(
        [[0.0, 0.0, 2.0, 1.0, 2.0], [1.0, 0.0, 1.0, 1.0, 0.0], [2.0, 0.0, 1.0, 0.0, 0.0]]
    ),
    "w_q": np.array(
        [[0.0, 1.0, 1.0], [0.0, 0.0, 1.0], [0.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    ),
    "w_k": np.array(
        [[0.0, 1.0, 1.0], [0.0, 0.0, 1.0], [0.0, 0.0, 0.0], [1.5, 1.0, 0.0], [0.0, 0.0, 1.0]]
    ),
    "w_v": np.array(
        [[1.0, 1.0, 0.5], [0.5, 0.0, 0.5], [1.0, 0.5, 1.0], [1.0, 1.0, 0.0], [1.0, 1.0, 0.5]]
    ),
}

#: Chapter 1: the slide deck's sentence that a recurrent encoder must squeeze
#: into one vector before translating it.
LONG_SENTENCE = (
    "Don't use LSTMs for long and complex translations because they don't capture "
    "very very very very very large sequences, use attention instead"
)

#: Chapters 5 and 6: the slide deck's self-attention weights for "YOUR CAT IS A
#: LOVELY CAT" (seq = 6, d_model = d_k = 512, one head; the deck says the values
#: are random), and the cells its causal-mask slide sets to -inf. That slide is
#: incomplete: two rows are right, LOVELY and the last row (which hides nothing);
#: the other four leave later positions visible.
YOUR_CAT = {
    "tokens": ["YOUR", "CAT", "IS", "A", "LOVELY", "CAT"],
    "weights": np.array(
        [
            [0.268, 0.119, 0.134, 0.148, 0.179, 0.152],
            [0.124, 0.278, 0.201, 0.128, 0.154, 0.115],
            [0.147, 0.132, 0.262, 0.097, 0.218, 0.145],
            [0.210, 0.128, 0.206, 0.212, 0.119, 0.125],
            [0.146, 0.158, 0.152, 0.143, 0.227, 0.174],
            [0.195, 0.114, 0.203, 0.103, 0.157, 0.229],
        ]
    ),
    # (row, column) pairs the slide hides: YOUR->CAT, YOUR->IS, LOVELY->last CAT
    "slide_hidden": [(0, 1), (0, 2), (4, 5)],
}
