// deno-lint-ignore-file no-unused-vars
// The calls of the project newest first: a card each, with a one-line summary, its changes
// (folded when long, and when the call was undone), its arguments behind a toggle, and Undo or
// Redo with what toolhost answered beside the button.
/** A call whose diffs pass this many lines starts folded. */
const FOLD_LINES = 80;

function ensureToolOption(name) {
  const select = $("[name=filter-tool]");
  if ([...select.options].some((o) => o.value === name)) return;
  select.append(el("option", { value: name, text: name }));
}

function filterArgs() {
  const args = {};
  const tool = $("[name=filter-tool]").value;
  const path = $("[name=filter-path]").value.trim();
  if (tool) args.tool = tool;
  if (path) args.path = path;
  if ($("[name=filter-all]").checked) args.all = true;
  return args;
}

/** The first page again (or the next one, `more`), drawn anew. */
async function refresh(more) {
  const generation = ++state.generation;
  if (!more) state.offset = 0;
  const args = { ...filterArgs(), offset: state.offset, limit: 20 };
  try {
    const page = await changesPage(args);
    if (generation !== state.generation) return;
    const list = $("#calls");
    if (!more) {
      list.replaceChildren();
      state.calls.clear();
      state.revision = page.revision;
    }
    for (const call of page.calls) {
      state.calls.set(call.id, call);
      list.append(renderCall(call));
    }
    state.offset += page.calls.length;
    showEmpty();
    $("[data-action=more]").hidden = state.offset >= page.matched;
    if (page.notes) say(page.notes);
  } catch (error) {
    if (generation === state.generation) say(`Could not list the changes: ${error.message}`, true);
  }
  document.body.dataset.ready = "true";
}

async function changesPage(args) {
  const result = await callTool("history_changes", args);
  if (result.isError) throw new Error(textOf(result));
  const page = result.structuredContent;
  if (!page || !Array.isArray(page.calls)) throw new Error("toolhost sent no calls");
  for (const name of page.tools || []) ensureToolOption(name);
  return page;
}

function showEmpty() {
  const list = $("#calls");
  const empty = list.querySelector(".empty");
  if (list.querySelector(".call")) return empty && empty.remove();
  if (empty) return;
  const filtered = $("[name=filter-tool]").value || $("[name=filter-path]").value.trim();
  list.append(el("p", {
    class: "empty",
    text: "No changes recorded" + (filtered ? " that match the filters." : " yet."),
  }));
}

/** Lines added and removed, and files, in all. */
function stats(call) {
  let added = 0;
  let removed = 0;
  for (const change of call.changes) {
    added += change.added || 0;
    removed += change.removed || 0;
  }
  const files = call.changes.length + (call.moreChanges || 0);
  return { added, removed, files };
}

/** A time of today as its time alone, an older one with its date. */
function when(iso) {
  const time = new Date(iso);
  return time.toDateString() === new Date().toDateString()
    ? time.toLocaleTimeString()
    : time.toLocaleString();
}

/** What the call's button does now: undo it, redo it, or undo it again. */
function actionOf(call) {
  if (call.undoneBy) {
    return { label: call.undid ? "Undo again" : "Redo", id: call.undoneBy, action: "redo" };
  }
  if (call.undid) return { label: "Redo", id: call.id, action: "redo" };
  return call.undoable ? { label: "Undo", id: call.id, action: "undo" } : undefined;
}

function renderCall(call) {
  const heading = `h-${call.id}`;
  const { added, removed, files } = stats(call);
  const undone = Boolean(call.undoneBy);
  const article = el("article", {
    class: undone ? "call undone" : "call",
    "data-change-id": call.id,
    "aria-labelledby": heading,
  });
  const details = el("div", { class: "details" });
  const lines = call.changes.reduce((n, c) => n + (c.added || 0) + (c.removed || 0), 0);
  const open = !undone && lines <= FOLD_LINES;
  const toggle = el("button", {
    type: "button",
    class: "toggle",
    "data-action": "toggle",
    "aria-expanded": String(open),
    "aria-label": `Changes of ${call.tool} ${call.paths}`,
    text: open ? "▾" : "▸",
  });
  details.hidden = !open;
  toggle.addEventListener("click", () => {
    details.hidden = !details.hidden;
    toggle.setAttribute("aria-expanded", String(!details.hidden));
    toggle.textContent = details.hidden ? "▸" : "▾";
    if (!details.firstChild) fillDetails(call, details);
  });
  if (open) fillDetails(call, details);
  const summary = [
    files ? `${files} file${files === 1 ? "" : "s"}` : "",
    added || removed ? `+${added} −${removed}` : "",
    undone ? `undone by ${call.undoneBy}` : "",
    call.outcome === "ok" ? "" : call.outcome,
  ].filter(Boolean).join(" · ");
  const said = el("p", { class: "said", role: "status", "aria-live": "polite" });
  const act = actionOf(call);
  const buttons = el("div", { class: "acts" });
  if (act) {
    const button = el("button", { type: "button", "data-action": act.action, text: act.label });
    button.addEventListener("click", () => undo(act.id, button, said, call.id));
    buttons.append(button);
  }
  const argsButton = el("button", {
    type: "button",
    "data-action": "args",
    "aria-expanded": "false",
    text: "Arguments",
  });
  const args = el("pre", { class: "args", hidden: true, text: call.args });
  argsButton.addEventListener("click", () => {
    args.hidden = !args.hidden;
    argsButton.setAttribute("aria-expanded", String(!args.hidden));
  });
  buttons.append(argsButton, said);
  article.append(
    el(
      "div",
      { class: "head" },
      toggle,
      el(
        "h3",
        { id: heading },
        el("span", { class: "tool", text: call.tool }),
        " ",
        el("span", { class: "paths", text: call.paths }),
        call.excerpt ? el("span", { class: "excerpt", text: ` ${call.excerpt}` }) : undefined,
      ),
    ),
    el("p", {
      class: "meta",
      text: [summary, when(call.time), call.session, call.id]
        .filter(Boolean).join(" · "),
    }),
    buttons,
    args,
    details,
  );
  return article;
}

function fillDetails(call, details) {
  if (call.noUndo) {
    details.append(el("p", { class: "note", text: `Not undoable: ${call.noUndo}` }));
  }
  for (const change of call.changes) details.append(renderChange(change));
  if (call.moreChanges) {
    details.append(el("p", { class: "note", text: `And ${call.moreChanges} more changes.` }));
  }
}

function renderChange(change) {
  const box = el("div", { class: "diff" });
  const what = change.from ? `${change.kind} ${change.from} → ${change.path}` : change.path;
  const tag = change.from ? (change.note ? `(${change.note})` : "") : change.kind;
  const counts = change.added || change.removed ? ` +${change.added} −${change.removed}` : "";
  box.append(
    el("p", { class: "path" }, what, " ", el("span", { class: "tag", text: `${tag}${counts}` })),
  );
  if (change.hunks) {
    box.append(table(change.hunks, state.side));
    box.diff = change.hunks;
  }
  if (change.note && !change.from) box.append(el("p", { class: "note", text: change.note }));
  if (change.truncated) {
    box.append(
      el("p", { class: "note", text: "Longer than shown: read the file for the rest." }),
    );
  }
  return box;
}

/** Runs undo `id` for the card `callId`; what toolhost says goes beside the button. */
async function undo(id, button, said, callId) {
  button.disabled = true;
  said.classList.remove("error");
  said.textContent = "Working…";
  let result;
  try {
    result = await callTool("undo", { id });
  } catch (error) {
    result = {
      isError: true,
      content: [{ type: "text", text: `undo was not run: ${error.message}` }],
    };
  }
  const text = textOf(result) || (result.isError ? "undo failed" : "Done.");
  button.disabled = false;
  if (result.isError) {
    said.textContent = text;
    said.classList.add("error");
    return button.focus();
  }
  await follow();
  // The card was drawn anew: the answer goes beside its new button, which keeps the keyboard.
  const card = document.querySelector(`[data-change-id="${CSS.escape(callId)}"]`);
  const again = card && card.querySelector(".said");
  if (again) again.textContent = text;
  const next = card && card.querySelector("[data-action=undo], [data-action=redo]");
  (next || $("#status")).focus();
}

function toggleView(button) {
  state.side = !state.side;
  button.setAttribute("aria-pressed", String(state.side));
  for (const box of document.querySelectorAll(".diff")) {
    if (!box.diff) continue;
    box.querySelector("table").replaceWith(table(box.diff, state.side));
  }
}
