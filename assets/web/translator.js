// Reading a sentence as tutorlib reads it, then translating it: chapters 9 and 10 in the page.
//
// A line of English goes the way `python -m tutorlib translate` takes it: split into sentences
// (tutorlib.translation.sentences), each tokenized (tutorlib.translation.data), checked (too
// long, not English, a typo one edit from a known word, a word three times in a row), read with the source vocabulary (a name
// after a title is a name), decoded greedily or with beam search (transformer.js), and every
// <unk> the model writes replaced by the unknown source word its cross-attention points at
// (tutorlib.translation.decoding). Every constant of that path (the punctuation, the titles,
// the sentence patterns, the vocabularies, the budget and the guard) comes from translator.json,
// which tools/export_web.py writes from the Python modules: one specification, read by both.
// The messages are the Python ones, word for word; tests/test_web_translator.py checks that the
// page says what the command line says, sentence by sentence.

import { Translator, beamSearch, crossAttentionMaps, greedyDecode, readWeights } from "./transformer.js";

/** The model and its rules from translator.json (parsed) and translator.bin (an ArrayBuffer). */
export function loadTranslator(spec, buffer) {
  if (spec.format !== "tutorlib-web-translator/1") {
    throw new Error(`translator.json is in format ${JSON.stringify(spec.format)}, expected ` +
      "tutorlib-web-translator/1: rebuild the book (make book) so page and weights match");
  }
  const model = new Translator(spec.config, readWeights(buffer, spec.weights.tensors));
  const whitespace = spec.tokens.whitespace;
  const space = `[${escapeClass(whitespace)}]`;
  const pattern = (source) => new RegExp(source.replaceAll("\\s", space), "gu");
  const srcIndex = new Map(spec.vocab.src.map((token, i) => [token, i]));
  const tgtIndex = new Map(spec.vocab.tgt.map((token, i) => [token, i]));
  // a gendered vocabulary (data.Vocab): an unknown first name of known gender is <unk:f> or <unk:m>
  const gendered = (index) => ({
    f: index.get("<unk:f>"),
    m: index.get("<unk:m>"),
  });
  const unknownIds = (index) =>
    new Set([spec.specials.unk, ...Object.values(gendered(index)).filter((id) => id !== undefined)]);
  return {
    model,
    spec,
    srcIndex,
    srcGendered: gendered(srcIndex),
    people: people(spec),
    srcUnknown: unknownIds(srcIndex),
    tgtUnknown: unknownIds(tgtIndex),
    tgtWords: new Set(spec.vocab.tgt),
    white: new Set(whitespace),
    sentenceEnd: pattern(spec.sentences.sentence_end),
    gluedEnd: pattern(spec.sentences.glued_end),
    spaces: new RegExp(`(${space}+)`, "u"),
    typoPiece: new RegExp(spec.typos.piece, "u"),
    wordChar: new RegExp(spec.typos.word_char, "u"),
    neverTypos: new Set([...spec.typos.words, ...spec.typos.not_typos]),
  };
}

/** What the gender rules read (copying.guessed_genders, unknown_gender_notice): each relation's
 * masculine (plurals too) and feminine, the name list's genders, its table of endings, the
 * names it has as both that lean to women ([agree, listed] languages), and the others it has
 * that the endings would read as women's. */
export function people(spec) {
  const map = (object) => new Map(Object.entries(object ?? {}));
  return {
    relations: map(spec.relations),
    feminine: map(spec.feminine),
    genders: map(spec.genders),
    endings: map(spec.endings),
    leanings: map(spec.leanings),
    listed: new Set(spec.listed ?? []),
  };
}

function escapeClass(chars) {
  return [...chars].map((c) => `\\u{${c.codePointAt(0).toString(16)}}`).join("");
}

// --- Python's string habits, where the messages show them -----------------------------------

/** Python's repr() of a string: single quotes unless it holds ' and no ", escapes for the
 * backslash, the quote and what cannot be printed. */
export function pyRepr(text) {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const c of text) {
    const code = c.codePointAt(0);
    if (c === "\\" || c === quote) out += "\\" + c;
    else if (c === "\t") out += "\\t";
    else if (c === "\n") out += "\\n";
    else if (c === "\r") out += "\\r";
    else if (c !== " " && /[\p{C}\p{Z}]/u.test(c)) {
      const hex = code.toString(16);
      if (code < 0x100) out += "\\x" + hex.padStart(2, "0");
      else if (code < 0x10000) out += "\\u" + hex.padStart(4, "0");
      else out += "\\U" + hex.padStart(8, "0");
    } else out += c;
  }
  return out + quote;
}

/** text[:n] as Python counts: by characters (code points), not UTF-16 units. */
function head(text, n) {
  return [...text].slice(0, n).join("");
}

/** Python's str.split() with no argument: runs of white space, none at either end. */
function splitWhite(reader, text) {
  const words = [];
  let word = "";
  for (const c of text) {
    if (reader.white.has(c)) {
      if (word) words.push(word);
      word = "";
    } else word += c;
  }
  if (word) words.push(word);
  return words;
}

function strip(reader, text) {
  const chars = [...text];
  let a = 0;
  let b = chars.length;
  while (a < b && reader.white.has(chars[a])) a++;
  while (b > a && reader.white.has(chars[b - 1])) b--;
  return chars.slice(a, b).join("");
}

// --- sentences and tokens (chapter 9, and chapter 10's splitting) ---------------------------

/** "I am happy. She is tired!" -> ["I am happy.", "She is tired!"] (sentences.split_sentences). */
export function splitSentences(reader, text) {
  const { sentences: s, tokens } = reader.spec;
  const unglued = (word) => {
    if (word.includes("@") || word.includes("/") || word.toLowerCase().includes("www.")) return word;
    return word.replace(reader.gluedEnd, " ");
  };
  if (s.address_marks.join() !== "@,/,www.") throw new Error("translator.json's address marks changed: port them");
  const joined = strip(reader, text).split(" ").map(unglued).join(" ");
  const out = [];
  for (const piece of joined.split(reader.sentenceEnd)) {
    if (!piece) continue;
    const last = out.length ? splitWhite(reader, out[out.length - 1]).at(-1).toLowerCase() : null;
    if (last !== null && tokens.title_abbreviations.includes(last)) out[out.length - 1] += " " + piece;
    else out.push(piece);
  }
  return out;
}

/** A sentence -> its tokens, punctuation split off (data.tokenize); lower: lower-cased. */
export function tokenize(reader, text, lower = true) {
  const t = reader.spec.tokens;
  for (const mark of t.curly_apostrophes) text = text.replaceAll(mark, "'");
  const out = [];
  for (let word of splitWhite(reader, text)) {
    if (t.title_abbreviations.includes(word.toLowerCase())) word = word.slice(0, -1); // "Mr." is "mr"
    const front = [];
    while (word && t.punctuation.includes(word[0])) {
      if (!front.length || front.at(-1) !== word[0]) front.push(word[0]);
      word = word.slice(1);
    }
    const back = [];
    while (word && t.punctuation.includes(word.at(-1))) {
      if (!back.length || back.at(-1) !== word.at(-1)) back.push(word.at(-1));
      word = word.slice(0, -1);
    }
    out.push(...front);
    if (word) out.push(lower ? word.toLowerCase() : word);
    out.push(...back.reverse());
  }
  return out;
}

export function isPunctuation(reader, token) {
  return token.length === 1 && reader.spec.tokens.punctuation.includes(token);
}

/** Tokens -> a sentence for display: no space before . , ! ? ; : ) nor after ( ¿ ¡. */
export function detokenize(reader, tokens) {
  const t = reader.spec.tokens;
  let out = "";
  for (const tok of tokens) {
    if (out && !t.no_space_before.includes(tok) && !t.no_space_after.includes(out.at(-1))) out += " ";
    out += tok;
  }
  return out;
}

// --- one sentence (decoding._prepare and _copy_unknown) -------------------------------------

function addNotice(result, text) {
  result.notice = result.notice ? `${result.notice}; ${text}` : text;
}

function notEnglish(reader, real) {
  const known = real.filter((w) => reader.srcIndex.has(w));
  const more = (list) => list.slice(0, 5).join(", ");
  if (!known.length) {
    return `none of its words are in the translator's English vocabulary (${more(real)}` +
      `${real.length > 5 ? " ..." : ""}): is it English? The model would only make up words`;
  }
  const foreign = real.filter((w) => reader.tgtWords.has(w));
  if (foreign.length > known.length) {
    return `it looks Portuguese, not English: ${foreign.length} of its ${real.length} words are ` +
      `Portuguese words the translator writes (${more(foreign)}), only ${known.length} English ` +
      `(${more(known)}). The translator reads English`;
  }
  return "";
}

// --- typos (tutorlib.translation.typos, chapter 10) ------------------------------------------

/** "swap" when word is typed with two adjacent letters swapped, "edit" when one letter is
 * inserted, deleted or replaced, else null (typos.one_edit). */
export function oneEdit(typed, word) {
  if (typed === word) return null;
  const n = typed.length;
  const m = word.length;
  if (n === m) {
    const diff = [];
    for (let i = 0; i < n; i++) if (typed[i] !== word[i]) diff.push(i);
    if (diff.length === 1) return "edit";
    const i = diff[0];
    const swapped = typed[i] === word[i + 1] && typed[i + 1] === word[i];
    return diff.length === 2 && diff[1] === i + 1 && swapped ? "swap" : null;
  }
  if (Math.abs(n - m) !== 1) return null;
  const [short, long] = n < m ? [typed, word] : [word, typed];
  let i = 0;
  while (i < short.length && short[i] === long[i]) i++;
  return short.slice(i) === long.slice(i + 1) ? "edit" : null;
}

/** "The techer writes a poem." -> ["The teacher writes a poem.", ["read 'techer' as 'teacher'"]]:
 * a lower-case word of 3 letters or more that no model knows, not after a title, read as the one
 * phrasebook word one edit away (a swap breaks a tie; other ties are said, not guessed). */
export function readTypos(reader, sentence) {
  const t = reader.spec.typos;
  const titles = reader.spec.source.titles;
  const pieces = sentence.split(reader.spaces);
  const notices = [];
  let afterTitle = false;
  pieces.forEach((piece, k) => {
    if (!reader.wordChar.test(piece)) return; // white space, or marks alone
    const match = reader.typoPiece.exec(piece);
    const word = match ? match[2] : "";
    const lower = word.toLowerCase();
    const followsTitle = afterTitle;
    afterTitle = titles.includes(lower);
    const isLower = word !== "" && word === lower;
    if (!isLower || reader.neverTypos.has(lower) || word.length < t.shortest || followsTitle) return;
    const near = t.words.flatMap((w) => { const kind = oneEdit(lower, w); return kind ? [[w, kind]] : []; });
    let reading = near.length === 1 ? near[0][0] : null;
    if (reading === null) {
      const swaps = near.filter(([, kind]) => kind === "swap");
      if (swaps.length === 1) reading = swaps[0][0];
    }
    if (reading === null) {
      if (near.length) {
        const words = near.map(([w]) => `'${w}'`);
        notices.push(`'${word}' could be ${words.slice(0, -1).join(", ")} or ${words.at(-1)}: left as typed`);
      }
      return;
    }
    pieces[k] = match[1] + reading + match[3];
    notices.push(`read '${word}' as '${reading}'`);
  });
  return [pieces.join(""), notices];
}

/** Check and read one sentence: [result, source ids or null when there is nothing to decode]. */
function prepare(reader, sentence) {
  const { spec } = reader;
  const maxLen = spec.config.max_len;
  const result = { source: sentence, text: "", sourceTokens: tokenize(reader, sentence, false),
    outputTokens: [], copied: new Map(), notice: null, error: null, parts: [] };
  let words = result.sourceTokens.map((t) => t.toLowerCase());
  if (!words.length) return [result, null];
  if (words.every((w) => isPunctuation(reader, w))) {
    result.notice = "it holds only punctuation, no words: nothing to translate";
    return [result, null];
  }
  if (words.length > maxLen) {
    result.error = `it has ${words.length} tokens, more than the ${maxLen} positions the model was ` +
      `built for (TranslatorConfig.max_len): shorten or split it: ${pyRepr(head(sentence, 60))}`;
    return [result, null];
  }
  let real = words.filter((w) => !isPunctuation(reader, w));
  const problem = notEnglish(reader, real);
  if (problem) {
    result.error = problem;
    return [result, null];
  }
  const [corrected, typos] = readTypos(reader, sentence); // after the language check
  if (typos.length) {
    result.sourceTokens = tokenize(reader, corrected, false); // one word for one: same length
    words = result.sourceTokens.map((w) => w.toLowerCase());
    real = words.filter((w) => !isPunctuation(reader, w));
    addNotice(result, typos.join("; "));
  }
  let run = 1;
  let longest = 1;
  let word = real[0];
  for (let i = 1; i < real.length; i++) {
    run = real[i] === real[i - 1] ? run + 1 : 1;
    if (run > longest) [longest, word] = [run, real[i]];
  }
  if (longest >= spec.source.repeated_word) {
    addNotice(result, `"${word}" comes ${longest} times in a row, which no sentence the translator ` +
      "learned does: its translation is a guess");
  }
  const unk = spec.specials.unk;
  const ids = words.map((w) => reader.srcIndex.get(w) ?? unknownId(reader, w));
  // a title's name is a name even when it is also an English word ("Mr Brown", "Dr Rose")
  const titles = spec.source.titles;
  for (let j = 1; j < words.length; j++) {
    if (titles.includes(words[j - 1]) || (reader.srcUnknown.has(ids[j - 1]) && j >= 2 &&
      titles.includes(words[j - 2]) &&
      /^\p{Uppercase}/u.test(result.sourceTokens[j]))) ids[j] = unk;
  }
  // a name the list gives no gender after "friend": its ending's guess ("Priya": <unk:f>)
  if (reader.people.relations.size) {
    const unknownAt = ids.flatMap((id, j) => (reader.srcUnknown.has(id) ? [j] : []));
    for (const [j, guess] of guessedGenders(result.sourceTokens, unknownAt, reader.people)) {
      ids[j] = reader.srcGendered[guess.gender] ?? ids[j];
    }
  }
  return [result, ids];
}

/** The id of a word the source vocabulary lacks (data.Vocab.token_to_id): <unk>, or <unk:f> /
 * <unk:m> for a first name whose gender the name list knows (phrasebook.world.gender_of). */
function unknownId(reader, word) {
  const gender = reader.people.genders.get(word.trim().normalize("NFC").toLowerCase());
  const id = gender ? reader.srcGendered[gender] : undefined;
  return id ?? reader.spec.specials.unk;
}

// copying.unknown_gender_notice's rules: what may stand between a relation and the name, what
// closes a name after a comma, what a name is (letters, an apostrophe or hyphen inside) and a
// final "'s" left out of it
const SKIP_SOURCE = new Set([",", "dr"]);
const SKIP_OUTPUT = new Set([",", "dr", "doutor", "doutora"]);
const CLOSING = new Set([",", ".", "!", "?", ";"]);
const NAME_LETTERS = /^\p{L}+(?:['\u2019-]\p{L}+)*$/u;
const POSSESSIVE = /['\u2019][sS]$/;

/** The position of the word before position at, past any words of skip (any case); -1 for none. */
function positionBefore(words, at, skip) {
  at -= 1;
  while (at >= 0 && skip.has(words[at].toLowerCase())) at -= 1;
  return at;
}

/** The word before position at, past any words of skip (any case); "" for none. */
function wordBefore(words, at, skip) {
  at = positionBefore(words, at, skip);
  return at >= 0 ? words[at] : "";
}

/** copying._unlisted_after_relation: { name, relation, at } for a word of letters the list gives
 * no gender after a relation (a comma or "Dr" between; after a comma, a name closed by another
 * or a mark), or null. */
function unlistedAfterRelation(sourceWords, j, people) {
  const name = sourceWords[j].replace(POSSESSIVE, "").normalize("NFC");
  const at = positionBefore(sourceWords, j, SKIP_SOURCE);
  const relation = at >= 0 ? sourceWords[at].toLowerCase() : "";
  if (!people.relations.has(relation) || !NAME_LETTERS.test(name) ||
    people.genders.get(name.toLowerCase()) || SKIP_SOURCE.has(name.toLowerCase())) {
    return null; // and not the title itself ("my friend Dr")
  }
  const closed = j + 1 === sourceWords.length || CLOSING.has(sourceWords[j + 1]);
  if (sourceWords.slice(at + 1, j).includes(",") && !closed) return null; // a new clause
  return { name, relation, at };
}

/** world.guess_gender: { gender, ending, agree, listed, by } from the longest ending (no longer
 * than the table's longest, shorter than the name) the table has; gender "" when that ending's
 * names are of neither gender, or the table has none. Letters, not UTF-16 units, as Python
 * counts them. */
export function guessGender(name, endings) {
  const letters = [...name.trim().normalize("NFC").toLowerCase()];
  const longest = Math.max(0, ...[...endings.keys()].map((ending) => [...ending].length));
  for (let k = Math.min(longest, letters.length - 1); k > 0; k -= 1) {
    const ending = letters.slice(-k).join("");
    const found = endings.get(ending);
    if (found !== undefined) {
      const [gender, agree, listed] = found;
      return gender ? { gender, ending, agree, listed, by: "ending" } : { gender: "" };
    }
  }
  return { gender: "" };
}

/** copying.guessed_genders: Map position -> guess, for each unknown word (unknownAt) typed with
 * a capital after a relation of one person, with no title between, that the list has as both
 * and leans to women (people.leanings: world.name_leaning), or that the list does not have
 * (people.listed: the others it has that the ending would read as women's) and whose ending
 * reads as a woman's. */
export function guessedGenders(sourceWords, unknownAt, people) {
  const guesses = new Map();
  for (const j of unknownAt) {
    const found = unlistedAfterRelation(sourceWords, j, people);
    if (found === null || !/^\p{Uppercase}/u.test(sourceWords[j])) continue;
    if (!people.feminine.has(found.relation)) continue;
    if (sourceWords.slice(found.at, j).some((w) => w.toLowerCase() === "dr")) continue;
    const name = found.name.toLowerCase();
    const leaning = people.leanings.get(name);
    if (leaning !== undefined) {
      const [agree, listed] = leaning;
      guesses.set(j, { gender: "f", ending: "", agree, listed, by: "languages" });
      continue;
    }
    const guess = guessGender(found.name, people.endings);
    if (guess.gender === "f" && !people.listed.has(name)) guesses.set(j, guess);
  }
  return guesses;
}

/** copying.unknown_gender_notice: "" or the notice for each word of letters the list gives no
 * gender after a relation, copied (copied: Map output position -> source position) right after
 * the relation's form in the translation: the feminine its ending suggested, the masculine
 * though it did, or the masculine. */
export function unknownGenderNotice(sourceWords, unknownAt, outputWords, copied, people) {
  const said = [];
  const guesses = guessedGenders(sourceWords, unknownAt, people);
  for (const j of unknownAt) {
    const found = unlistedAfterRelation(sourceWords, j, people);
    if (found === null) continue;
    const { name, relation } = found;
    const masculine = people.relations.get(relation);
    const feminine = people.feminine.get(relation);
    const before = new Set([...copied].filter(([, s]) => s === j)
      .map(([t]) => wordBefore(outputWords, t, SKIP_OUTPUT).toLowerCase()));
    const start = `the course's list of names gives no gender for "${name}": "${relation}" ` +
      "before it";
    const guess = guesses.get(j);
    if (guess !== undefined && (before.has(feminine) || before.has(masculine))) {
      const share = guess.agree === guess.listed ? `all ${guess.listed}`
        : `${guess.agree} of the ${guess.listed}`;
      const byLanguages = guess.by === "languages";
      const source = byLanguages ? "the languages that list it" : "the name's ending";
      const evidence = byLanguages ? `${share} give it only to women`
        : `${share} first names on the list that end in "${guess.ending}" are women's`;
      said.push(before.has(feminine)
        ? `${start} is written in the feminine (${feminine}), a guess from ${source}: ` +
          evidence
        : `${start} is written in the masculine (${masculine}), though ${source} ` +
          `suggest${byLanguages ? "" : "s"} a woman: ${evidence}`);
    } else if (before.has(masculine)) {
      said.push(`${start} is written in the masculine (${masculine}), as Portuguese does when ` +
        "the gender is unknown");
    }
  }
  return [...new Set(said)].join("; ");
}

/** The decoder's ids -> the translation, each <unk> replaced by an unknown source word: the one
 * its cross-attention (the last layer, heads averaged) weighs most, of those not copied yet
 * first, and a name of several words whole and in order (copying.copy_positions); the notices
 * say what happened. */
function copyUnknown(reader, result, srcIds, hyp, withWeights) {
  const { model, spec } = reader;
  const { pad, bos } = spec.specials;
  const unknownAt = srcIds.flatMap((id, j) => (reader.srcUnknown.has(id) ? [j] : []));
  const unk = reader.tgtUnknown; // what the model writes for a word to copy
  let maps = null;
  if (withWeights || (hyp.some((id) => unk.has(id)) && unknownAt.length)) {
    maps = crossAttentionMaps(model, srcIds, hyp, bos);
  }
  const layer = maps && maps.at(spec.decoding.align_layer);
  const meanWeight = (t, j) => layer.reduce((sum, head) => sum + head[t][j], 0) / layer.length;
  const tokens = [];
  let dropped = 0;
  // copying.copy_positions: each <unk> an unknown source word, a word not copied yet first
  // ("Kalani has 7 cats" -> 7 for the second <unk>), and a name of several words whole and in
  // order: the next word after a copy, and a run of L <unk> on the window of L adjacent uncopied
  // unknown words whose weights add up most
  const unknown = new Set(unknownAt);
  const unknownOut = hyp.map((id) => unk.has(id) && unknownAt.length > 0);
  let previous = null;
  unknownOut.forEach((isUnknown, t) => {
    if (!isUnknown) {
      previous = null;
      return;
    }
    if (result.copied.has(t)) { // placed by a run's window
      previous = result.copied.get(t);
      return;
    }
    const taken = new Set(result.copied.values());
    const allTaken = unknownAt.every((k) => taken.has(k));
    let j;
    if (previous !== null && unknown.has(previous + 1) && (!taken.has(previous + 1) || allTaken)) {
      j = previous + 1; // the next word of a name of several words
    } else {
      let length = 1;
      while (t + length < unknownOut.length && unknownOut[t + length]) length += 1;
      const starts = unknownAt.filter((s) => {
        for (let k = 0; k < length; k += 1) if (!unknown.has(s + k) || taken.has(s + k)) return false;
        return true;
      });
      if (length > 1 && starts.length) {
        let best = starts[0];
        let bestScore = -Infinity;
        for (const s of starts) {
          let score = 0;
          for (let k = 0; k < length; k += 1) score += meanWeight(t + k, s + k);
          if (score > bestScore) { best = s; bestScore = score; }
        }
        for (let k = 1; k < length; k += 1) result.copied.set(t + k, best + k);
        j = best;
      } else {
        const fresh = unknownAt.filter((k) => !taken.has(k));
        const pool = fresh.length ? fresh : unknownAt;
        j = pool[0];
        for (const k of pool) if (meanWeight(t, k) > meanWeight(t, j)) j = k;
      }
    }
    result.copied.set(t, j);
    previous = j;
  });
  hyp.forEach((id, t) => {
    if (result.copied.has(t)) tokens.push(result.sourceTokens[result.copied.get(t)]);
    else {
      if (unk.has(id)) dropped += 1;
      tokens.push(spec.vocab.tgt[id]);
    }
  });
  result.outputTokens = tokens;
  result.maps = maps;
  result.text = detokenize(reader, tokens.filter((tok, t) =>
    hyp[t] !== pad && hyp[t] !== bos && (!unk.has(hyp[t]) || result.copied.has(t))));
  const said = [];
  const copiedFrom = new Set(result.copied.values());
  for (const j of unknownAt) {
    const w = result.sourceTokens[j];
    said.push(copiedFrom.has(j) ? `"${w}" copied as is` : `"${w}" dropped`);
  }
  if (said.length) {
    addNotice(result, `${said.length > 1 ? "these words are" : "this word is"} not in the translator's ` +
      `vocabulary: ${[...new Set(said)].join("; ")}`);
  }
  // copying.unknown_gender_notice: a copied word the list gives no gender after "friend"...
  if (reader.people.relations.size) {
    const gender = unknownGenderNotice(result.sourceTokens, unknownAt, tokens, result.copied,
      reader.people);
    if (gender) addNotice(result, gender);
  }
  if (dropped) {
    addNotice(result, `the model wrote ${dropped} unknown word${dropped > 1 ? "s" : ""} (<unk>) but the ` +
      "sentence has no unknown word to copy: dropped");
  }
}

/** One sentence -> its translation: { text, notice, error, sourceTokens, outputTokens, copied,
 * srcIds, hyp, maps (every layer's and head's cross-attention, when withWeights) }. */
function translateOne(reader, sentence, beamSize, withWeights) {
  const [result, ids] = prepare(reader, sentence);
  if (ids === null) return result;
  const { model, spec } = reader;
  const d = spec.decoding;
  const hyp = beamSize === 1
    ? greedyDecode(model, ids, spec.specials, d)
    : beamSearch(model, ids, spec.specials, d, beamSize, d.length_penalty);
  copyUnknown(reader, result, ids, hyp, withWeights);
  result.srcIds = ids;
  result.hyp = hyp;
  return result;
}

/** Texts -> one result each, as decoding.translate_sentences: a text of several sentences is
 * translated sentence by sentence and joined, its notices and errors numbered. */
export function translateSentences(reader, texts, beamSize = 1, withWeights = false) {
  return texts.map((text) => {
    const pieces = splitSentences(reader, text);
    if (pieces.length <= 1) return translateOne(reader, text, beamSize, withWeights);
    const parts = pieces.map((piece) => translateOne(reader, piece, beamSize, withWeights));
    const out = { source: text, text: "", sourceTokens: [], outputTokens: [], copied: new Map(),
      notice: null, error: null, parts };
    parts.forEach((part, k) => {
      out.sourceTokens.push(...part.sourceTokens);
      out.outputTokens.push(...part.outputTokens);
      if (part.notice) addNotice(out, `sentence ${k + 1}: ${part.notice}`);
      if (part.error) {
        out.error = out.error ? `${out.error}; ` : "";
        out.error += `sentence ${k + 1} (${pyRepr(head(part.source, 40))}): ${part.error}`;
      }
    });
    out.text = out.error ? "" : parts.filter((p) => p.text).map((p) => p.text).join(" ");
    return out;
  });
}

/** One line, as `python -m tutorlib translate` answers it: { text, messages, sentences }, the
 * messages being what the command line prints to stderr ("sentence 2: not translated: ..."),
 * without its "argument 1" prefix. */
export function translateLine(reader, line, beamSize = 1, withWeights = false) {
  const results = translateSentences(reader, splitSentences(reader, line), beamSize, withWeights);
  const messages = [];
  results.forEach((r, k) => {
    const place = results.length > 1 ? `sentence ${k + 1}: ` : "";
    if (r.error) messages.push({ kind: "error", text: `${place}not translated: ${r.error}` });
    else if (r.notice) messages.push({ kind: "notice", text: `${place}${r.notice}` });
  });
  return { text: results.filter((r) => r.text).map((r) => r.text).join(" "), messages, sentences: results };
}
