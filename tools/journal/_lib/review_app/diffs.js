// deno-lint-ignore-file no-unused-vars
// A change's hunks as a table: unified, or side by side.
const SIGN = { "+": ["add", "+", "added"], "-": ["del", "−", "removed"], " ": ["", " ", ""] };

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

function unified(hunks) {
  const body = el("tbody");
  for (const hunk of hunks) {
    body.append(hunkRow(hunk, 4));
    let a = hunk.oldStart;
    let b = hunk.newStart;
    for (const line of hunk.lines) {
      const sign = SIGN[line[0]];
      if (!sign) {
        body.append(el("tr", { class: "h" }, el("td", { colspan: 4, text: line.slice(2) })));
        continue;
      }
      body.append(el(
        "tr",
        { class: sign[0] || undefined },
        el("td", { class: "n", text: line[0] === "+" ? "" : a++ }),
        el("td", { class: "n", text: line[0] === "-" ? "" : b++ }),
        el("td", { class: "s", "aria-label": sign[2] || undefined, text: sign[1] }),
        el("td", { class: "c", text: line.slice(1) }),
      ));
    }
  }
  return el("table", {}, body);
}

function sideBySide(hunks) {
  const body = el("tbody");
  const cells = (n, line, kind) => [
    el("td", { class: "n", text: n }),
    el("td", { class: `c ${kind}`.trim(), text: line === undefined ? "" : line }),
  ];
  for (const hunk of hunks) {
    body.append(hunkRow(hunk, 4));
    let a = hunk.oldStart;
    let b = hunk.newStart;
    const lines = hunk.lines.filter((l) => SIGN[l[0]]);
    for (let i = 0; i < lines.length;) {
      if (lines[i][0] === " ") {
        body.append(
          el(
            "tr",
            {},
            ...cells(a++, lines[i].slice(1), ""),
            ...cells(b++, lines[i].slice(1), ""),
          ),
        );
        i++;
        continue;
      }
      const removed = [];
      const added = [];
      while (i < lines.length && lines[i][0] === "-") removed.push(lines[i++].slice(1));
      while (i < lines.length && lines[i][0] === "+") added.push(lines[i++].slice(1));
      for (let k = 0; k < Math.max(removed.length, added.length); k++) {
        const left = k < removed.length ? cells(a++, removed[k], "del") : cells("", undefined, "");
        const right = k < added.length ? cells(b++, added[k], "add") : cells("", undefined, "");
        body.append(el("tr", {}, ...left, ...right));
      }
    }
  }
  return el("table", { class: "side" }, body);
}
