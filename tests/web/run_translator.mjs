// The page's translator under Node, for tests/test_web_translator.py (and benchmarks/web_translator.py).
//
//     node tests/web/run_translator.mjs EXPORT_DIR REQUEST.json > ANSWER.json
//
// EXPORT_DIR holds translator.json and translator.bin (tools/export_web.py). REQUEST.json:
// {"lines": [...], "beams": [1, 4], "logits": [{"src": [ids], "tgt": [ids]}, ...]}. The answer:
// {"lines": {"1": [{text, messages, sentences: [{text, notice, error}]}], "4": [...]},
//  "logits": [[[V numbers] per step] per request], "seconds": {...}}. Nothing is compared here:
// Python computes the expected outputs itself, from the same weights, when the test runs.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { loadTranslator, translateLine } from "../../assets/web/translator.js";

const [dir, requestPath] = process.argv.slice(2);
if (!dir || !requestPath) {
  console.error("usage: node tests/web/run_translator.mjs EXPORT_DIR REQUEST.json");
  process.exit(2);
}
const started = performance.now();
const spec = JSON.parse(readFileSync(join(dir, "translator.json"), "utf8"));
const bytes = readFileSync(join(dir, "translator.bin"));
const reader = loadTranslator(spec, bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
const loaded = performance.now();
const request = JSON.parse(readFileSync(requestPath, "utf8"));
const answer = { lines: {}, logits: [], seconds: { load: (loaded - started) / 1000 } };
for (const beam of request.beams || []) {
  const t0 = performance.now();
  answer.lines[beam] = (request.lines || []).map((line) => {
    const r = translateLine(reader, line, beam);
    return { text: r.text, messages: r.messages.map((m) => m.text),
      sentences: r.sentences.map((s) => ({ text: s.text, notice: s.notice, error: s.error })) };
  });
  answer.seconds[`beam ${beam}`] = (performance.now() - t0) / 1000;
}
for (const { src, tgt } of request.logits || []) {
  const model = reader.model;
  const cache = model.newCache(model.encode(src), src.length);
  answer.logits.push(tgt.map((token) => Array.from(model.step(token, cache).logits)));
}
process.stdout.write(JSON.stringify(answer));
