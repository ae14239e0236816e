// deno-lint-ignore-file no-unused-vars
// The calls of the project newest first, each change a diff, and their Undo buttons.
function ensureToolOption(name) {
  const select = $("[name=filter-tool]");
  if ([...select.options].some((o) => o.value === name)) return;
  select.append(el("option", { value: name, text: name }));
}

async function refresh(more) {
  const generation = ++state.generation;
  if (!more) state.offset = 0;
  const args = { offset: state.offset, limit: 20 };
  const tool = $("[name=filter-tool]").value;
  const path = $("[name=filter-path]").value.trim();
  if (tool) args.tool = tool;
  if (path) args.path = path;
  if ($("[name=filter-all]").checked) args.all = true;
  try {
    const result = await callTool("history_changes", args);
    if (generation !== state.generation) return;
    if (result.isError) throw new Error(textOf(result));
    const page = result.structuredContent;
    if (!page || !Array.isArray(page.calls)) throw new Error("toolhost sent no calls");
    for (const name of page.tools || []) ensureToolOption(name);
    const list = $("#calls");
    if (!more) list.replaceChildren();
    for (const call of page.calls) list.append(renderCall(call));
    state.offset += page.calls.length;
    if (list.children.length === 0) {
      list.append(
        el("p", {
          class: "empty",
          text: "No changes recorded" + (tool || path ? " that match the filters." : " yet."),
        }),
      );
    }
    $("[data-action=more]").hidden = state.offset >= page.matched;
    if (page.notes) say(page.notes);
  } catch (error) {
    if (generation === state.generation) {
      say(`Could not list the changes: ${error.message}`, true);
    }
  }
  document.body.dataset.ready = "true";
}

function renderCall(call) {
  const heading = `h-${call.id}`;
  const article = el("article", {
    class: "call",
    "data-change-id": call.id,
    "aria-labelledby": heading,
  });
  article.append(
    el(
      "h3",
      { id: heading },
      `${call.tool} `,
      el("span", {
        class: "tag",
        text: `${call.outcome} · ${new Date(call.time).toLocaleString()}`,
      }),
    ),
    el("p", { class: "meta", text: `${call.id} · ${call.session} · ${call.args}` }),
  );
  if (call.undoneBy) {
    article.append(el("p", { class: "note", text: `Undone by ${call.undoneBy}.` }));
  }
  if (call.undid) {
    article.append(el("p", { class: "note", text: `Undid ${call.undid.join(", ")}.` }));
  }
  if (call.noUndo) {
    article.append(el("p", { class: "note", text: `Not undoable: ${call.noUndo}` }));
  }
  for (const change of call.changes) article.append(renderChange(change));
  if (call.moreChanges) {
    article.append(el("p", { class: "note", text: `And ${call.moreChanges} more changes.` }));
  }
  if (call.changes.length) {
    const button = el("button", {
      type: "button",
      "data-action": "undo",
      text: "Undo this call",
    });
    button.addEventListener("click", () => undo(call.id, button));
    article.append(button);
  }
  return article;
}

function renderChange(change) {
  const box = el("div", { class: "diff" });
  box.append(
    el(
      "p",
      { class: "path" },
      change.path,
      " ",
      el("span", { class: "tag", text: change.from ? `moved from ${change.from}` : change.kind }),
    ),
  );
  if (change.hunks) {
    box.append(state.side ? sideBySide(change.hunks) : unified(change.hunks));
    box.diff = change.hunks;
  }
  if (change.note) box.append(el("p", { class: "note", text: change.note }));
  if (change.truncated) {
    box.append(
      el("p", { class: "note", text: "Longer than shown: read the file for the rest." }),
    );
  }
  return box;
}

async function undo(id, button) {
  button.disabled = true;
  say(`Undoing ${id}…`);
  try {
    const result = await callTool("undo", { id });
    say(textOf(result) || (result.isError ? "undo failed" : "Undone."), result.isError);
    if (!result.isError) await refresh();
  } catch (error) {
    say(`undo was not run: ${error.message}`, true);
  } finally {
    button.disabled = false;
  }
  // The list was drawn again: focus goes back to this call's button, or to what was said.
  const again = document.querySelector(`[data-change-id="${CSS.escape(id)}"] [data-action=undo]`);
  (again || $("#status")).focus();
}

function toggleView(button) {
  state.side = !state.side;
  button.setAttribute("aria-pressed", String(state.side));
  for (const box of document.querySelectorAll(".diff")) {
    if (!box.diff) continue;
    box.querySelector("table").replaceWith(state.side ? sideBySide(box.diff) : unified(box.diff));
  }
}
