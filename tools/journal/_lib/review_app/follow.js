// deno-lint-ignore-file no-unused-vars
// Following the work as it lands. In a browser toolhost tells the page (subscriptions/listen on
// toolhost://history); inside a host, which passes on no subscriptions, the page asks every few
// seconds, cheaply: history_changes with the revision it has reads nothing while none landed.
// New calls go above the ones shown, keeping what the reader looks at where it was.
const FOLLOW_MS = 2000;
const HISTORY_URI = "toolhost://history";
let followRun;
let followAgain = false;

/** Looks for what landed; calls while one look runs make one more look after it. */
function follow() {
  if (followRun) {
    followAgain = true;
    return followRun;
  }
  followRun = (async () => {
    do {
      followAgain = false;
      await followOnce();
    } while (followAgain);
  })().finally(() => (followRun = undefined));
  return followRun;
}

async function followOnce() {
  if (state.revision === undefined) return await refresh();
  const generation = state.generation;
  let page;
  try {
    page = await changesPage({ ...filterArgs(), offset: 0, limit: 20, unless: state.revision });
  } catch {
    return; // The next look tries again.
  }
  if (page.unchanged || generation !== state.generation) return;
  state.revision = page.revision;
  const anchor = readersPlace();
  const list = $("#calls");
  const first = list.querySelector(".call");
  const fresh = page.calls.filter((call) => !state.calls.has(call.id));
  for (const call of page.calls) {
    const known = state.calls.get(call.id);
    state.calls.set(call.id, call);
    if (known && known.undoneBy !== call.undoneBy) redraw(call);
  }
  for (const call of fresh) {
    const card = renderCall(call);
    if (first) first.before(card);
    else list.append(card);
  }
  // An undo reaches calls further down than this page: their cards change too.
  for (const call of fresh) if (call.undid && !call.undoneBy) undoneNow(call);
  state.offset += fresh.length;
  showEmpty();
  // Said before the place is kept: the status line above the list may grow.
  if (fresh.length) {
    say(`New: ${fresh.map((call) => `${call.tool} ${call.paths}`.trim()).join("; ")}`);
  }
  keepPlace(anchor);
}

function redraw(call) {
  const card = document.querySelector(`[data-change-id="${CSS.escape(call.id)}"]`);
  if (card) card.replaceWith(renderCall(call));
}

/** `undo` stands: what it undid is undone, and what an undone undo had undone stands again. */
function undoneNow(undo) {
  for (const id of undo.undid) {
    const target = state.calls.get(id);
    if (!target || target.undoneBy === undo.id) continue;
    target.undoneBy = undo.id;
    redraw(target);
    if (!target.undid) continue;
    for (const call of state.calls.values()) {
      if (call.undoneBy !== target.id) continue;
      delete call.undoneBy;
      redraw(call);
    }
  }
}

/** The first card in view and where it is, when the reader has scrolled. */
function readersPlace() {
  if (globalThis.scrollY === 0) return undefined;
  for (const node of document.querySelectorAll(".call")) {
    const top = node.getBoundingClientRect().top;
    if (node.getBoundingClientRect().bottom > 0) return { node, top };
  }
  return undefined;
}

function keepPlace(anchor) {
  if (!anchor || !anchor.node.isConnected) return;
  globalThis.scrollBy(0, anchor.node.getBoundingClientRect().top - anchor.top);
}

/** Starts following: told by toolhost in a browser, else (or when that fails) asking. */
function startFollowing() {
  if (!framed) return listen();
  askEvery();
}

function askEvery() {
  document.body.dataset.following = "asking";
  setInterval(() => {
    if (!document.hidden) follow();
  }, FOLLOW_MS);
}

async function listen() {
  try {
    const response = await mcpFetch(
      "subscriptions/listen",
      { notifications: { resourceSubscriptions: [HISTORY_URI] } },
      "text/event-stream",
    );
    if (!response.ok || !response.body) throw new Error(`${response.status}`);
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      const events = buffer.split(/\r?\n\r?\n/);
      buffer = events.pop();
      for (const event of events) {
        const data = event.split(/\r?\n/).filter((line) => line.startsWith("data:"))
          .map((line) => line.slice(5).trim()).join("\n");
        if (!data) continue;
        const message = JSON.parse(data);
        const granted = message.params && message.params.notifications;
        if (message.method === "notifications/subscriptions/acknowledged") {
          if (!(granted && (granted.resourceSubscriptions || []).includes(HISTORY_URI))) {
            throw new Error("not granted");
          }
          document.body.dataset.following = "told";
        } else if (message.method === "notifications/resources/updated") follow();
      }
    }
  } catch {
    // Not told (an older toolhost, a token that expired, a dropped stream): ask instead.
  }
  askEvery();
}
