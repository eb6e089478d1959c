// The page's translator off the main thread: typing never waits for a decoding.
//
// assets/web/live.js starts this worker (a module worker) when a reader first uses a translator
// box; the worker fetches translator.json and translator.bin from its own folder (written there by
// tools/export_web.py when the book is built), once, and then answers one line at a time:
//   {id, line, beam}  ->  {id, result, ms}   (or {id, error})
// A result is translator.js's translateLine with, for each sentence, the cross-attention of every
// decoder layer and head for the heatmap: the rows the words written and the <eos>.
import { crossAttentionMaps, outputBudget } from "./transformer.js";
import { loadTranslator, translateLine } from "./translator.js";

let reader = null;
let loading = null;

async function load() {
  const started = performance.now();
  const [specResponse, binResponse] = await Promise.all([
    fetch(new URL("translator.json", import.meta.url)),
    fetch(new URL("translator.bin", import.meta.url)),
  ]);
  for (const r of [specResponse, binResponse]) {
    if (!r.ok) throw new Error(`could not fetch ${r.url} (HTTP ${r.status}): was the book built with make book?`);
  }
  const [spec, buffer] = await Promise.all([specResponse.json(), binResponse.arrayBuffer()]);
  const fetched = performance.now();
  reader = loadTranslator(spec, buffer);
  const bytes = buffer.byteLength + Number(specResponse.headers.get("content-length") || 0);
  return { fetchMs: fetched - started, parseMs: performance.now() - fetched, bytes };
}

function withAttention(result, beam) {
  const { model, spec } = reader;
  const eos = spec.specials.eos;
  const sentences = result.sentences.flatMap((s) => (s.parts && s.parts.length ? s.parts : [s]));
  return {
    text: result.text,
    messages: result.messages,
    sentences: sentences.map((s) => {
      const out = { source: s.source, text: s.text, notice: s.notice, error: s.error };
      if (!s.srcIds) return out;
      const budget = outputBudget(s.srcIds.length, spec.config.max_len, spec.decoding.budget);
      const ended = s.hyp.length < budget; // no <eos> when the budget ran out first
      out.columns = s.sourceTokens.map((t) => t.toLowerCase());
      out.rows = [...s.outputTokens, ...(ended ? ["<eos>"] : [])];
      out.ended = ended;
      out.maps = crossAttentionMaps(model, s.srcIds, ended ? [...s.hyp, eos] : s.hyp, spec.specials.bos);
      return out;
    }),
    beam,
  };
}

self.onmessage = async (event) => {
  const { id, line, beam } = event.data;
  try {
    if (!loading) loading = load();
    const loaded = await loading;
    if (line === undefined) { self.postMessage({ id, loaded }); return; } // a warm-up: load only
    const started = performance.now();
    const result = withAttention(translateLine(reader, line, beam), beam);
    self.postMessage({ id, line, result, ms: performance.now() - started, loaded,
      palette: reader.spec.display.palette, layers: reader.spec.config.num_decoder_layers,
      heads: reader.spec.config.num_heads });
  } catch (err) {
    self.postMessage({ id, error: String(err && err.message ? err.message : err) });
  }
};
