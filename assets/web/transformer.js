// The course's encoder-decoder Transformer, in the reader's browser: chapters 4 to 8 and 10.
//
// This is the forward pass of tutorlib.translation.model.Translator, written out with loops
// instead of torch: embeddings scaled by sqrt(D) plus sinusoidal positions (chapters 2 and 8),
// scaled dot-product attention (chapter 4) split into H heads (chapter 5), the causal and
// padding masks (chapter 6), cross-attention (chapter 7), the pre-norm block (chapter 8), the
// KV cache and greedy and beam decoding with the length budget and the repetition guard
// (chapter 10). It needs nothing but itself: no library, no server.
//
// Numbers: the weights arrive as float16 (tools/export_web.py) and are held as Float32Array;
// the arithmetic is in JavaScript's float64. PyTorch computes in float32, so logits differ in
// about the sixth digit (tests/test_web_translator.py measures it); the words chosen are the
// same on every sentence the parity tests try.
//
// Shape letters as in the book: S source length, T target length, D = d_model, H heads,
// Dh = D / H, V the target vocabulary. A sequence of T vectors of width D is one Float64Array of
// T * D numbers, row after row.

// --- weights ---------------------------------------------------------------------------------

/** float16 bits -> number (IEEE 754 half precision: 1 sign, 5 exponent, 10 fraction bits). */
function halfToNumber(h) {
  const sign = h & 0x8000 ? -1 : 1;
  const exponent = (h >> 10) & 0x1f;
  const fraction = h & 0x3ff;
  if (exponent === 0) return sign * fraction * 2 ** -24; // subnormal
  if (exponent === 31) return fraction ? NaN : sign * Infinity;
  return sign * (1 + fraction / 1024) * 2 ** (exponent - 15);
}

/** The named weights of translator.bin, each a Float32Array, from the layout in translator.json. */
export function readWeights(buffer, layout) {
  const halves = new Uint16Array(buffer); // little-endian, as the export writes and browsers read
  const table = new Float32Array(65536);
  for (let h = 0; h < 65536; h++) table[h] = halfToNumber(h);
  const weights = {};
  let total = 0;
  for (const { name, shape, offset } of layout) {
    const size = shape.reduce((a, b) => a * b, 1);
    if (offset + size > halves.length) {
      throw new Error(`translator.bin holds ${halves.length} numbers, but ${name} ${JSON.stringify(shape)} ` +
        `needs numbers ${offset} to ${offset + size}: is the file cut short or from another export?`);
    }
    const w = new Float32Array(size);
    for (let i = 0; i < size; i++) w[i] = table[halves[offset + i]];
    weights[name] = w;
    total += size;
  }
  if (total !== halves.length) {
    throw new Error(`translator.bin holds ${halves.length} numbers but translator.json lays out ${total}`);
  }
  return weights;
}

// --- the layers (chapters 2 to 8) ---------------------------------------------------------

/** x (T, n_in) -> x W^T + b, (T, n_out): torch's Linear, W stored (n_out, n_in). */
function linear(x, T, W, b, nIn, nOut) {
  const y = new Float64Array(T * nOut);
  for (let t = 0; t < T; t++) {
    const xo = t * nIn;
    for (let o = 0; o < nOut; o++) {
      const wo = o * nIn;
      let sum = b ? b[o] : 0;
      for (let i = 0; i < nIn; i++) sum += x[xo + i] * W[wo + i];
      y[t * nOut + o] = sum;
    }
  }
  return y;
}

/** Each row of x (T, D) to mean 0 and variance 1, then scaled by g and shifted by b. */
function layerNorm(x, T, D, g, b, eps) {
  const y = new Float64Array(T * D);
  for (let t = 0; t < T; t++) {
    let mean = 0;
    for (let i = 0; i < D; i++) mean += x[t * D + i];
    mean /= D;
    let variance = 0;
    for (let i = 0; i < D; i++) variance += (x[t * D + i] - mean) ** 2;
    const scale = 1 / Math.sqrt(variance / D + eps); // the biased variance, as torch's LayerNorm
    for (let i = 0; i < D; i++) y[t * D + i] = (x[t * D + i] - mean) * scale * g[i] + b[i];
  }
  return y;
}

/** x += y, in place (a residual connection). */
function addInPlace(x, y) {
  for (let i = 0; i < x.length; i++) x[i] += y[i];
  return x;
}

/** The paper's sinusoidal positions, (maxLen, D): sines on even features, cosines on odd ones.
 * tutorlib computes them in float64 and keeps them as float32, so they are rounded here too. */
export function positionalEncoding(maxLen, D) {
  const pe = new Float64Array(maxLen * D);
  for (let p = 0; p < maxLen; p++) {
    for (let i = 0; i < D; i += 2) {
      const angle = p / 10000 ** (i / D);
      pe[p * D + i] = Math.fround(Math.sin(angle));
      if (i + 1 < D) pe[p * D + i + 1] = Math.fround(Math.cos(angle));
    }
  }
  return pe;
}

/** Token ids -> their embeddings times sqrt(D), plus the positions first, first + 1, ... */
function embed(table, ids, D, pe, first) {
  const x = new Float64Array(ids.length * D);
  const scale = Math.sqrt(D);
  ids.forEach((id, t) => {
    for (let i = 0; i < D; i++) x[t * D + i] = table[id * D + i] * scale + pe[(first + t) * D + i];
  });
  return x;
}

/** Scaled dot-product attention of H heads (chapters 4 and 5):
 * q (Tq, D), k and v (Tk, D) -> the heads' outputs side by side, (Tq, D), and the weights,
 * weights[h] a Float64Array (Tq, Tk). Query t may look at keys 0 .. visible(t) - 1: all of them
 * for cross-attention, t + 1 of them under the causal mask (chapter 6). */
function attention(q, k, v, Tq, Tk, D, H, visible) {
  const Dh = D / H;
  const out = new Float64Array(Tq * D);
  const weights = [];
  const scale = 1 / Math.sqrt(Dh);
  for (let h = 0; h < H; h++) {
    const w = new Float64Array(Tq * Tk); // (Tq, Tk), 0 where masked
    for (let t = 0; t < Tq; t++) {
      const n = visible(t);
      let top = -Infinity;
      for (let s = 0; s < n; s++) {
        let dot = 0;
        for (let i = 0; i < Dh; i++) dot += q[t * D + h * Dh + i] * k[s * D + h * Dh + i];
        w[t * Tk + s] = dot * scale;
        if (w[t * Tk + s] > top) top = w[t * Tk + s];
      }
      let total = 0; // softmax over the visible keys (chapter 3), shifted by the largest score
      for (let s = 0; s < n; s++) {
        w[t * Tk + s] = Math.exp(w[t * Tk + s] - top);
        total += w[t * Tk + s];
      }
      for (let s = 0; s < n; s++) w[t * Tk + s] /= total;
      for (let s = 0; s < n; s++) {
        const ws = w[t * Tk + s];
        for (let i = 0; i < Dh; i++) out[t * D + h * Dh + i] += ws * v[s * D + h * Dh + i];
      }
    }
    weights.push(w);
  }
  return { out, weights };
}

/** The position-wise feed-forward network: linear2(relu(linear1(x))). */
function feedForward(x, T, p, D, F) {
  const hidden = linear(x, T, p.w1, p.b1, D, F);
  for (let i = 0; i < hidden.length; i++) if (hidden[i] < 0) hidden[i] = 0;
  return linear(hidden, T, p.w2, p.b2, F, D);
}

// --- the model (chapter 9's Translator) ----------------------------------------------------

/** The translator built from its config (translator.json) and weights (readWeights). */
export class Translator {
  constructor(config, weights) {
    if (!config.norm_first) {
      throw new Error("this page runs pre-norm translators (norm_first: true); the export says false");
    }
    this.config = config;
    const D = (this.D = config.d_model);
    this.H = config.num_heads;
    this.F = config.d_ff;
    this.eps = config.layer_norm_eps;
    const need = (name) => {
      if (!(name in weights)) throw new Error(`translator.bin has no ${name}: is it from another model?`);
      return weights[name];
    };
    const attn = (prefix) => ({
      wq: need(`${prefix}.w_q.weight`), bq: need(`${prefix}.w_q.bias`),
      wk: need(`${prefix}.w_k.weight`), bk: need(`${prefix}.w_k.bias`),
      wv: need(`${prefix}.w_v.weight`), bv: need(`${prefix}.w_v.bias`),
      wo: need(`${prefix}.w_o.weight`), bo: need(`${prefix}.w_o.bias`),
    });
    const norm = (prefix) => ({ g: need(`${prefix}.weight`), b: need(`${prefix}.bias`) });
    const ff = (prefix) => ({
      w1: need(`${prefix}.linear1.weight`), b1: need(`${prefix}.linear1.bias`),
      w2: need(`${prefix}.linear2.weight`), b2: need(`${prefix}.linear2.bias`),
    });
    this.srcEmbed = need("src_embed.weight"); // (V_src, D)
    this.tgtEmbed = config.share_embeddings ? this.srcEmbed : need("tgt_embed.weight"); // (V, D)
    this.outWeight = config.tie_output ? this.tgtEmbed : need("generator.weight"); // (V, D)
    this.outBias = need("generator.bias");
    this.V = this.outBias.length;
    this.encoderLayers = [];
    for (let l = 0; l < config.num_encoder_layers; l++) {
      const p = `encoder.layers.${l}`;
      this.encoderLayers.push({
        selfAttn: attn(`${p}.self_attn`), ff: ff(`${p}.feed_forward`),
        norm1: norm(`${p}.norm1`), norm2: norm(`${p}.norm2`),
      });
    }
    this.decoderLayers = [];
    for (let l = 0; l < config.num_decoder_layers; l++) {
      const p = `decoder.layers.${l}`;
      this.decoderLayers.push({
        selfAttn: attn(`${p}.self_attn`), crossAttn: attn(`${p}.cross_attn`), ff: ff(`${p}.feed_forward`),
        norm1: norm(`${p}.norm1`), norm2: norm(`${p}.norm2`), norm3: norm(`${p}.norm3`),
      });
    }
    this.encoderNorm = norm("encoder.norm");
    this.decoderNorm = norm("decoder.norm");
    this.pe = positionalEncoding(config.max_len, D);
  }

  norm(x, T, p) {
    return layerNorm(x, T, this.D, p.g, p.b, this.eps);
  }

  /** srcIds (S token ids, no padding) -> memory (S, D): the encoder's output. */
  encode(srcIds) {
    const S = srcIds.length;
    const { D, H } = this;
    if (S > this.config.max_len) throw new Error(`the source has ${S} positions, more than max_len=${this.config.max_len}`);
    let x = embed(this.srcEmbed, srcIds, D, this.pe, 0); // (S, D)
    for (const layer of this.encoderLayers) {
      // pre-norm: x = x + self_attn(norm1(x)); x = x + ff(norm2(x))
      const h = this.norm(x, S, layer.norm1);
      const a = layer.selfAttn;
      const q = linear(h, S, a.wq, a.bq, D, D);
      const k = linear(h, S, a.wk, a.bk, D, D);
      const v = linear(h, S, a.wv, a.bv, D, D);
      const { out } = attention(q, k, v, S, S, D, H, () => S); // every source word sees every other
      addInPlace(x, linear(out, S, a.wo, a.bo, D, D));
      addInPlace(x, feedForward(this.norm(x, S, layer.norm2), S, layer.ff, D, this.F));
    }
    return this.norm(x, S, this.encoderNorm);
  }

  /** A fresh KV cache for one decoding of `memory` (S, D): the cross-attention's keys and values
   * of the source, computed once; the self-attention's grow by one row per step. */
  newCache(memory, S) {
    const { D } = this;
    return {
      length: 0, // positions decoded so far, t
      layers: this.decoderLayers.map((layer) => {
        const a = layer.crossAttn;
        return {
          selfK: [], selfV: [], // one Float64Array (D) per position so far
          crossK: linear(memory, S, a.wk, a.bk, D, D), crossV: linear(memory, S, a.wv, a.bv, D, D),
          S,
        };
      }),
    };
  }

  /** A copy of `cache` that can grow on its own (a beam that two survivors extend). The rows
   * themselves never change, so they are shared, not copied. */
  static forkCache(cache) {
    return {
      length: cache.length,
      layers: cache.layers.map((c) => ({ ...c, selfK: c.selfK.slice(), selfV: c.selfV.slice() })),
    };
  }

  /** One decoding step: the token at position cache.length -> logits (V) of the next token,
   * and the cross-attention of this step, cross[layer][head] a Float64Array (S). */
  step(token, cache) {
    const { D, H } = this;
    const t = cache.length;
    if (t + 1 > this.config.max_len) throw new Error(`the target has ${t + 1} positions, more than max_len=${this.config.max_len}`);
    let x = embed(this.tgtEmbed, [token], D, this.pe, t); // (1, D)
    const cross = [];
    this.decoderLayers.forEach((layer, l) => {
      const c = cache.layers[l];
      // masked self-attention: the new query sees positions 0 .. t, read from the cache
      let h = this.norm(x, 1, layer.norm1);
      let a = layer.selfAttn;
      c.selfK.push(linear(h, 1, a.wk, a.bk, D, D));
      c.selfV.push(linear(h, 1, a.wv, a.bv, D, D));
      const keys = stack(c.selfK, D);
      const values = stack(c.selfV, D);
      let q = linear(h, 1, a.wq, a.bq, D, D);
      let r = attention(q, keys, values, 1, t + 1, D, H, () => t + 1);
      addInPlace(x, linear(r.out, 1, a.wo, a.bo, D, D));
      // cross-attention: the query from the decoder, keys and values from the encoder (chapter 7)
      h = this.norm(x, 1, layer.norm2);
      a = layer.crossAttn;
      q = linear(h, 1, a.wq, a.bq, D, D);
      r = attention(q, c.crossK, c.crossV, 1, c.S, D, H, () => c.S);
      cross.push(r.weights);
      addInPlace(x, linear(r.out, 1, a.wo, a.bo, D, D));
      addInPlace(x, feedForward(this.norm(x, 1, layer.norm3), 1, layer.ff, D, this.F));
    });
    cache.length = t + 1;
    x = this.norm(x, 1, this.decoderNorm);
    return { logits: linear(x, 1, this.outWeight, this.outBias, D, this.V), cross };
  }
}

/** Rows (each a Float64Array of D) -> one Float64Array (n, D). */
function stack(rows, D) {
  const out = new Float64Array(rows.length * D);
  rows.forEach((row, i) => out.set(row, i * D));
  return out;
}

/** log softmax of logits (V): log-probabilities of the next token. */
export function logSoftmax(logits) {
  let top = -Infinity;
  for (const z of logits) if (z > top) top = z;
  let total = 0;
  for (const z of logits) total += Math.exp(z - top);
  const logTotal = top + Math.log(total);
  return logits.map((z) => z - logTotal);
}

// --- decoding (chapter 10) ----------------------------------------------------------------

/** The most words a translation of S source tokens may have: 2 S + 5, at most the model's
 * max_len - 1 positions after BOS (tutorlib.translation.guards.output_budget). */
export function outputBudget(S, maxLen, rule) {
  return Math.min(rule.per_source_word * S + rule.plus, maxLen - 1);
}

/** The tokens the repetition guard bans after `words` (the tokens so far, without BOS): the one
 * that would come a (maxRun + 1)-th time in a row, and every one that would complete an n-gram
 * (n = noRepeatNgram) already written. EOS is never banned (guards.repetition_mask). */
export function bannedTokens(words, maxRun, noRepeatNgram, eosId) {
  const banned = new Set();
  const n = words.length;
  if (maxRun && n >= maxRun) {
    const tail = words.slice(n - maxRun);
    if (tail.every((w) => w === tail[0])) banned.add(tail[0]);
  }
  if (noRepeatNgram && n >= noRepeatNgram) {
    const k = noRepeatNgram - 1; // the newest k tokens, looked for earlier in the sentence
    for (let start = 0; start < n - k; start++) {
      let same = true;
      for (let i = 0; i < k && same; i++) same = words[start + i] === words[n - k + i];
      if (same) banned.add(words[start + k]);
    }
  }
  banned.delete(eosId);
  return banned;
}

function guarded(logProbs, words, d, eosId) {
  for (const token of bannedTokens(words, d.max_run, d.no_repeat_ngram, eosId)) logProbs[token] = -Infinity;
  return logProbs;
}

/** Greedy decoding: the most likely token at every step, until EOS or the budget (2 S + 5).
 * Returns the token ids written, without BOS and EOS (decoding.greedy_decode). */
export function greedyDecode(model, srcIds, specials, d) {
  const memory = model.encode(srcIds);
  const cache = model.newCache(memory, srcIds.length);
  const budget = outputBudget(srcIds.length, model.config.max_len, d.budget);
  const words = [];
  let token = specials.bos;
  for (let step = 0; step < budget; step++) {
    const logProbs = guarded(logSoftmax(model.step(token, cache).logits), words, d, specials.eos);
    token = argmax(logProbs);
    if (token === specials.eos) break;
    words.push(token);
  }
  return words;
}

/** GNMT's length penalty ((5 + |Y|) / 6)^alpha; a beam's score is divided by it. */
export function lengthPenaltyFactor(length, alpha) {
  return ((5 + length) / 6) ** alpha;
}

/** Beam search with K beams (decoding.beam_search): every step extends each live beam by every
 * token, and the K best of the K x V candidates survive, ranked by their summed log-probability
 * divided by the length penalty. A beam that writes EOS or spends its budget is finished: its
 * score stays, it only pads. The search ends when every beam is finished; the best beam wins. */
export function beamSearch(model, srcIds, specials, d, K, alpha) {
  const V = model.V;
  if (K > V) throw new Error(`beam_size=${K} is larger than the target vocabulary (${V} tokens)`);
  const memory = model.encode(srcIds);
  const budget = outputBudget(srcIds.length, model.config.max_len, d.budget);
  // one live beam to start with (the others at -Infinity), else the K beams would be K copies
  let beams = [{ tokens: [specials.bos], words: [], score: 0, length: 0, finished: false,
    cache: model.newCache(memory, srcIds.length) }];
  for (let k = 1; k < K; k++) beams.push({ ...beams[0], score: -Infinity, cache: null });
  for (let step = 0; step < budget; step++) {
    const candidates = []; // [ranked score, beam, token, summed score]
    beams.forEach((beam, b) => {
      if (beam.score === -Infinity) return; // no candidate of it can survive
      if (beam.finished) { // its only continuation: padding, at no cost
        candidates.push([beam.score / lengthPenaltyFactor(beam.length, alpha), b, specials.pad, beam.score]);
        return;
      }
      const last = beam.tokens[beam.tokens.length - 1];
      const logProbs = guarded(logSoftmax(model.step(last, beam.cache).logits), beam.words, d, specials.eos);
      const factor = lengthPenaltyFactor(beam.length + 1, alpha);
      for (let v = 0; v < V; v++) {
        if (logProbs[v] === -Infinity) continue;
        const score = beam.score + logProbs[v];
        candidates.push([score / factor, b, v, score]);
      }
    });
    // the K best, ties to the earlier candidate (beam, then token), as torch.topk orders them here
    candidates.sort((x, y) => y[0] - x[0] || x[1] - y[1] || x[2] - y[2]);
    const used = new Set();
    beams = candidates.slice(0, K).map(([, b, token, score]) => {
      const parent = beams[b];
      const cache = parent.cache && (used.has(b) ? Translator.forkCache(parent.cache) : parent.cache);
      used.add(b);
      const length = parent.length + (parent.finished ? 0 : 1);
      const finished = parent.finished || token === specials.eos || length >= budget;
      const writes = !parent.finished && token !== specials.eos;
      return { tokens: [...parent.tokens, token], words: writes ? [...parent.words, token] : parent.words,
        score, length, finished, cache };
    });
    // a beam forked above must not share its parent's rows as they grow: forked before use
    while (beams.length < K) beams.push({ ...beams[0], score: -Infinity, cache: null });
    if (beams.every((beam) => beam.finished)) break;
  }
  let best = 0;
  let bestScore = -Infinity;
  beams.forEach((beam, b) => {
    const final = beam.score / lengthPenaltyFactor(Math.max(beam.length, 1), alpha);
    if (final > bestScore) { best = b; bestScore = final; }
  });
  return beams[best].words;
}

/** The index of the largest number (the first of equals, as torch.argmax). */
export function argmax(values) {
  let best = 0;
  for (let i = 1; i < values.length; i++) if (values[i] > values[best]) best = i;
  return best;
}

/** Every decoder layer's and head's cross-attention while writing `hypIds`: the decoder reads
 * BOS + hypIds[:-1] and row t is the step that wrote hypIds[t] (decoding.cross_attention_maps).
 * Returns maps[layer][head], an array of T rows of S weights. */
export function crossAttentionMaps(model, srcIds, hypIds, bosId) {
  const memory = model.encode(srcIds);
  const cache = model.newCache(memory, srcIds.length);
  const L = model.decoderLayers.length;
  const maps = Array.from({ length: L }, () => Array.from({ length: model.H }, () => []));
  [bosId, ...hypIds.slice(0, -1)].forEach((token) => {
    const { cross } = model.step(token, cache);
    cross.forEach((heads, l) => heads.forEach((w, h) => maps[l][h].push(Array.from(w))));
  });
  return maps;
}
