// deno-lint-ignore-file no-unused-vars
// A change's hunks as a table, unified or side by side: the words that changed marked within a
// changed line, a long line shown around its change (the rest behind a button), and a long
// diff's first lines (the rest behind a button).
const SIGN = { "+": ["add", "+", "added"], "-": ["del", "−", "removed"], " ": ["", " ", ""] };
/** Lines of a file's diff shown before "Show … more lines". */
const SHOWN_LINES = 60;
/** A line longer is cut; an unchanged stretch longer than twice CONTEXT_CHARS is folded. */
const LINE_CHARS = 240;
const CONTEXT_CHARS = 60;
/** The most token pairs a line's word diff compares (beyond: the middle is marked whole). */
const WORD_CELLS = 40000;

const tokensOf = (text) => text.match(/[\p{L}\p{N}_]+|\s+|[^\p{L}\p{N}_\s]/gu) || [];

/** Which tokens of each side changed: common ends first, then the longest common subsequence. */
function changedTokens(x, y) {
  let p = 0;
  while (p < x.length && p < y.length && x[p] === y[p]) p++;
  let s = 0;
  while (s < x.length - p && s < y.length - p && x[x.length - 1 - s] === y[y.length - 1 - s]) s++;
  const n = x.length - p - s;
  const m = y.length - p - s;
  const cx = x.map((_, i) => i >= p && i < p + n);
  const cy = y.map((_, i) => i >= p && i < p + m);
  if (n > 0 && m > 0 && n * m <= WORD_CELLS) {
    const table = Array.from({ length: n + 1 }, () => new Uint16Array(m + 1));
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        table[i][j] = x[p + i] === y[p + j]
          ? table[i + 1][j + 1] + 1
          : Math.max(table[i + 1][j], table[i][j + 1]);
      }
    }
    for (let i = 0, j = 0; i < n && j < m;) {
      if (x[p + i] === y[p + j]) {
        cx[p + i++] = false;
        cy[p + j++] = false;
      } else if (table[i + 1][j] >= table[i][j + 1]) i++;
      else j++;
    }
  }
  return [cx, cy];
}

/** A line as segments [text, changed]; `marks` says which tokens changed. */
function segments(tokens, marks) {
  const out = [];
  tokens.forEach((token, i) => {
    const last = out[out.length - 1];
    if (last && last[1] === marks[i]) last[0] += token;
    else out.push([token, marks[i]]);
  });
  return out;
}

/** Pairs the removed and added lines of each change block, marking the words that changed. */
function wordMarks(lines) {
  const marked = new Map();
  for (let i = 0; i < lines.length;) {
    if (lines[i][0] !== "-") {
      i++;
      continue;
    }
    const from = i;
    while (i < lines.length && lines[i][0] === "-") i++;
    const to = i;
    while (i < lines.length && lines[i][0] === "+") i++;
    for (let k = 0; k < Math.min(to - from, i - to); k++) {
      const x = tokensOf(lines[from + k].slice(1));
      const y = tokensOf(lines[to + k].slice(1));
      const [cx, cy] = changedTokens(x, y);
      const kept = cx.filter((c) => !c).length;
      // Lines that share little are simply replaced: marking every word would say nothing.
      if (kept * 3 < Math.max(x.length, y.length)) continue;
      marked.set(from + k, segments(x, cx));
      marked.set(to + k, segments(y, cy));
    }
  }
  return marked;
}

/** A folded stretch of a line: a button that shows it. */
function folded(text) {
  const button = el("button", {
    type: "button",
    class: "expand",
    "data-action": "expand",
    text: `… ${text.length.toLocaleString("en")} more characters`,
  });
  button.addEventListener("click", () => button.replaceWith(text));
  return button;
}

/** A line's cell: its changed words marked, long unchanged stretches folded. */
function lineCell(text, segs, kind) {
  const cell = el("td", { class: `c ${kind}`.trim() });
  if (!segs) {
    if (text.length <= LINE_CHARS) cell.append(text);
    else cell.append(text.slice(0, LINE_CHARS), folded(text.slice(LINE_CHARS)));
    return cell;
  }
  const long = text.length > LINE_CHARS;
  segs.forEach(([part, changed], i) => {
    if (changed) return cell.append(el("mark", { text: part }));
    const keepStart = i > 0 ? CONTEXT_CHARS : 0;
    const keepEnd = i < segs.length - 1 ? CONTEXT_CHARS : 0;
    if (!long || part.length <= keepStart + keepEnd + 20) return cell.append(part);
    cell.append(
      part.slice(0, keepStart),
      folded(part.slice(keepStart, part.length - keepEnd)),
      part.slice(part.length - keepEnd),
    );
  });
  return cell;
}

function hunkRow(hunk, columns) {
  return el(
    "tr",
    { class: "h" },
    el("td", {
      colspan: columns,
      text: `@@ −${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`,
    }),
  );
}

/** Rows past SHOWN_LINES go into a body of their own, shown by the row that counts them. */
function table(hunks, side) {
  const shown = el("tbody");
  const rest = el("tbody", { hidden: true });
  let count = 0;
  const add = (row) => (count++ < SHOWN_LINES ? shown : rest).append(row);
  for (const hunk of hunks) {
    add(hunkRow(hunk, 4));
    (side ? sideRows : unifiedRows)(hunk, add);
  }
  const node = el("table", { class: side ? "side" : undefined }, shown, rest);
  if (count > SHOWN_LINES) {
    const button = el("button", {
      type: "button",
      "data-action": "more-lines",
      text: `Show ${(count - SHOWN_LINES).toLocaleString("en")} more lines`,
    });
    const row = el("tr", { class: "h" }, el("td", { colspan: 4 }, button));
    button.addEventListener("click", () => {
      rest.hidden = false;
      row.remove();
    });
    shown.append(row);
  }
  return node;
}

function unifiedRows(hunk, add) {
  let a = hunk.oldStart;
  let b = hunk.newStart;
  const marks = wordMarks(hunk.lines);
  hunk.lines.forEach((line, i) => {
    const sign = SIGN[line[0]];
    if (!sign) return add(el("tr", { class: "h" }, el("td", { colspan: 4, text: line.slice(2) })));
    add(el(
      "tr",
      { class: sign[0] || undefined },
      el("td", { class: "n", text: line[0] === "+" ? "" : a++ }),
      el("td", { class: "n", text: line[0] === "-" ? "" : b++ }),
      el("td", { class: "s", "aria-label": sign[2] || undefined, text: sign[1] }),
      lineCell(line.slice(1), marks.get(i), ""),
    ));
  });
}

function sideRows(hunk, add) {
  let a = hunk.oldStart;
  let b = hunk.newStart;
  const lines = hunk.lines.filter((l) => SIGN[l[0]]);
  const marks = wordMarks(lines);
  const cells = (n, i, kind) => [
    el("td", { class: "n", text: n }),
    i === undefined ? el("td", { class: "c" }) : lineCell(lines[i].slice(1), marks.get(i), kind),
  ];
  for (let i = 0; i < lines.length;) {
    if (lines[i][0] === " ") {
      add(el("tr", {}, ...cells(a++, i, ""), ...cells(b++, i, "")));
      i++;
      continue;
    }
    const removed = [];
    const added = [];
    while (i < lines.length && lines[i][0] === "-") removed.push(i++);
    while (i < lines.length && lines[i][0] === "+") added.push(i++);
    for (let k = 0; k < Math.max(removed.length, added.length); k++) {
      const left = k < removed.length ? cells(a++, removed[k], "del") : cells("", undefined);
      const right = k < added.length ? cells(b++, added[k], "add") : cells("", undefined);
      add(el("tr", {}, ...left, ...right));
    }
  }
}
