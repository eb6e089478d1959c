// The live translator box of the online book: chapter 10 and the front page.
//
// assets/course.js imports this module on a page that holds a <div class="tutorlib-live-translator">
// (its text is what a page without JavaScript shows). Here the div becomes a form: a text box,
// greedy or beam search with 4 beams, and menus for the sentence, the decoder layer and the head
// of the cross-attention heatmap, a table with its numbers (a screen reader reads it as a table).
// The work happens in a Web Worker (worker.js), which fetches the weights (2.5 MB) the first time
// the box is used: a page whose reader never uses it fetches nothing.
// A status line (a polite live region) says each translation when it arrives, or why there is none.

const EXAMPLE = "My friend Oluwaseun bought 3 red chairs yesterday.";
let counter = 0;

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "text") node.textContent = value;
    else node.setAttribute(key, value);
  }
  node.append(...children);
  return node;
}

/** A weight w in [0, 1] to 2 decimals as Python's f"{w:.2f}" prints it: toFixed rounds an
 * exact tie up (0.125 -> "0.13"), Python to the even digit ("0.12"); of the numbers a float
 * holds in [0, 1], only the odd eighths (0.125, 0.375, 0.625, 0.875) are such ties. */
export function printed(w) {
  const hundredths = w * 100; // exact for an odd eighth: 12.5, 37.5...
  if (Math.abs(hundredths % 1) === 0.5 && Number.isInteger(w * 8)) {
    const down = Math.trunc(hundredths);
    const even = down % 2 === 0 ? down : down + Math.sign(hundredths);
    return (even / 100).toFixed(2);
  }
  return w.toFixed(2);
}

/** One (T, S) weight table as course.css and tutorlib.display.weights_heatmap_html draw it: a
 * cell's colour comes from its number as printed, to 2 decimals (display.shown), so that the
 * page and Python colour a printed number alike. */
function heatmap(weights, rows, columns, title, palette) {
  const shown = (w) => Number(printed(w));
  const top = shown(Math.max(...weights.flat(), 0)) || 1;
  const table = el("table", { class: "tutorlib-heatmap tutorlib-live-heatmap" });
  table.append(el("caption", { class: "tutorlib-announce", text: title })); // read, not shown:
  const headRow = el("tr", {}, el("th", { scope: "col", text: "query ↓ key →" }));
  columns.forEach((c) => headRow.append(el("th", { scope: "col", text: c })));
  table.append(el("thead", {}, headRow));
  const body = el("tbody");
  weights.forEach((row, t) => {
    const tr = el("tr", {}, el("th", { scope: "row", text: rows[t] }));
    row.forEach((w) => {
      const x = Math.min(Math.max(shown(w) / top, 0), 1);
      const [bg, fg] = palette[Math.min(Math.floor(x * palette.length), palette.length - 1)];
      const td = el("td", { text: printed(w) });
      td.style.background = bg;
      td.style.color = fg;
      tr.append(td);
    });
    body.append(tr);
  });
  table.append(body);
  return table;
}

function menu(id, label, options) {
  const select = el("select", { id });
  options.forEach(([text, value]) => select.append(el("option", { value: String(value), text })));
  return [el("label", { for: id, text: label + " " }, select), select];
}

function setUp(root) {
  const uid = `tl-live-${++counter}`;
  const start = root.dataset.start || EXAMPLE;
  root.textContent = "";
  root.classList.add("tutorlib-live-ready");
  const input = el("input", { type: "text", id: `${uid}-text`, value: start, autocomplete: "off",
    spellcheck: "false", maxlength: "500" });
  const button = el("button", { type: "submit", class: "tutorlib-live-button", text: "Translate" });
  const greedy = el("input", { type: "radio", name: `${uid}-beam`, value: "1", checked: "checked" });
  const beam = el("input", { type: "radio", name: `${uid}-beam`, value: "4" });
  const decoding = el("fieldset", { class: "tutorlib-live-decoding" }, el("legend", { text: "decoding" }),
    el("label", {}, greedy, " greedy"), el("label", {}, beam, " beam search, 4 beams"));
  const form = el("form", { class: "tutorlib-live-form" },
    el("label", { for: input.id, text: "English sentence (press Enter)" }), el("div", { class: "tutorlib-live-row" }, input, button),
    decoding);
  const status = el("p", { class: "tutorlib-live-status", role: "status", "aria-live": "polite", "aria-atomic": "true" });
  const output = el("div", { class: "tutorlib-live-output" });
  const [sentenceLabel, sentenceMenu] = menu(`${uid}-sentence`, "sentence", [["1", 0]]);
  const [layerLabel, layerMenu] = menu(`${uid}-layer`, "layer", [["layer 1", 0]]);
  const [headLabel, headMenu] = menu(`${uid}-head`, "head", [["mean of the heads", -1]]);
  const viewControls = el("div", { class: "tutorlib-live-view-controls" }, sentenceLabel, layerLabel, headLabel);
  const tableBox = el("div", { class: "tutorlib-live-table", tabindex: "0", role: "region",
    "aria-label": "cross-attention table (arrow keys scroll it)" });
  const timing = el("p", { class: "tutorlib-live-timing" });
  const tableTitle = el("p", { class: "tutorlib-live-title", "aria-hidden": "true" });
  root.append(form, status, output, viewControls, tableTitle, tableBox, timing);
  viewControls.hidden = true;
  tableBox.hidden = true;

  let worker = null;
  let nextId = 0;
  let shown = null; // the last result drawn
  let busy = false;
  let wanted = null; // the newest request not yet sent: typing faster than decoding skips lines
  let firstAt = null;

  function startWorker() {
    if (worker) return;
    worker = new Worker(new URL("worker.js", import.meta.url), { type: "module" });
    status.textContent = "Loading the translator (2.5 MB, once)…";
    firstAt = performance.now();
    worker.onmessage = (event) => {
      busy = false;
      const { result, error, ms, loaded } = event.data;
      if (error) {
        status.textContent = `The translator could not run: ${error}`;
        root.dataset.state = "error";
      } else if (result) {
        draw(result, event.data);
        root.dataset.shown = event.data.line;
        if (root.dataset.firstMs === undefined) root.dataset.firstMs = String(performance.now() - firstAt);
        root.dataset.ms = String(ms);
        if (loaded) {
          timing.textContent = `Weights fetched in ${Math.round(loaded.fetchMs)} ms and read in ` +
            `${Math.round(loaded.parseMs)} ms; this translation took ${Math.round(ms)} ms, in your browser.`;
        }
      } else if (loaded && !shown) status.textContent = "The translator is ready.";
      send();
    };
    busy = true; // a first message without a line: fetch and read the weights now
    worker.postMessage({ id: ++nextId });
    worker.onerror = (event) => {
      busy = false;
      status.textContent = `The translator could not start: ${event.message || "this browser cannot run module workers"}`;
      root.dataset.state = "error";
    };
  }

  function send() {
    if (busy || !wanted) return;
    busy = true;
    root.dataset.state = "busy";
    worker.postMessage({ id: ++nextId, ...wanted });
    wanted = null;
  }

  function request() {
    startWorker();
    wanted = { line: input.value, beam: beam.checked ? 4 : 1 };
    send();
  }

  function draw(result, meta) {
    shown = { result, meta };
    const how = result.beam === 1 ? "greedy" : `beam search, ${result.beam} beams`;
    output.textContent = "";
    output.append(el("p", { class: "tutorlib-live-translation" }, `Portuguese (${how}): `,
      el("b", { lang: "pt", text: result.text || "—" })));
    if (result.messages.length) {
      const list = el("ul", { class: "tutorlib-live-messages" });
      result.messages.forEach((m) => list.append(el("li", { class: `tutorlib-live-${m.kind}`, text: m.text })));
      output.append(list);
    }
    const said = result.text ? `Portuguese: ${result.text}` : "No translation";
    const told = result.messages.map((m) => m.text).join(". ");
    const stop = /[.!?]$/.test(said) ? " " : ". ";
    status.textContent = (told ? `${said}${stop}${told}` : said).slice(0, 400);
    const drawable = result.sentences.map((s, k) => [s, k]).filter(([s]) => s.maps);
    sentenceMenu.textContent = "";
    drawable.forEach(([s, k]) => sentenceMenu.append(el("option", { value: String(k), text: `${k + 1}: ${s.source.slice(0, 40)}` })));
    sentenceLabel.hidden = drawable.length < 2;
    if (layerMenu.options.length !== meta.layers) {
      layerMenu.textContent = "";
      for (let l = 0; l < meta.layers; l++) layerMenu.append(el("option", { value: String(l), text: `layer ${l + 1}` }));
      headMenu.textContent = "";
      headMenu.append(el("option", { value: "-1", text: "mean of the heads" }));
      for (let h = 0; h < meta.heads; h++) headMenu.append(el("option", { value: String(h), text: `head ${h + 1}` }));
    }
    viewControls.hidden = tableBox.hidden = tableTitle.hidden = drawable.length === 0;
    drawTable();
    root.dataset.state = "done";
  }

  function drawTable() {
    tableBox.textContent = "";
    if (!shown) return;
    const { result, meta } = shown;
    const s = result.sentences[Number(sentenceMenu.value || 0)];
    if (!s || !s.maps) return;
    const layer = Number(layerMenu.value);
    const head = Number(headMenu.value);
    const heads = s.maps[layer];
    const weights = head === -1
      ? heads[0].map((row, t) => row.map((_, j) => heads.reduce((sum, h) => sum + h[t][j], 0) / heads.length))
      : heads[head];
    const which = head === -1 ? "mean of the heads" : `head ${head + 1} of ${meta.heads}`;
    const title = `cross-attention, decoder layer ${layer + 1} of ${meta.layers}, ${which}`;
    // the title above the box that scrolls (the caption, for a screen reader, is in the table)
    tableTitle.textContent = title;
    tableBox.append(heatmap(weights, s.rows, s.columns, title, meta.palette));
    if (!s.ended) {
      tableBox.append(el("p", { text: `no <eos> within the ${s.rows.length} words allowed: the translation is cut off` }));
    }
  }

  form.addEventListener("submit", (event) => { event.preventDefault(); request(); });
  let pending = null;
  input.addEventListener("input", () => { clearTimeout(pending); pending = setTimeout(request, 350); });
  input.addEventListener("focus", startWorker, { once: true }); // fetch while the reader types
  [greedy, beam].forEach((radio) => radio.addEventListener("change", request));
  [sentenceMenu, layerMenu, headMenu].forEach((m) => m.addEventListener("change", drawTable));
  root.dataset.ready = "true";
}

export function setUpAll(scope = document) {
  scope.querySelectorAll(".tutorlib-live-translator:not([data-ready])").forEach(setUp);
}

if (typeof document !== "undefined") setUpAll(); // not under Node, where the tests import it
