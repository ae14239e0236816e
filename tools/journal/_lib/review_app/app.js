// toolhost's review app. Inside an MCP Apps host (an iframe) it speaks the host's postMessage
// JSON-RPC (ui/initialize, then tools/call and resources/read passed on to toolhost); opened
// from `toolhost --http` in a browser, it posts 2026-07-28 requests to /mcp itself.
"use strict";
(() => {
  const EXTENSION = "io.modelcontextprotocol/ui";
  const MIME = "text/html;profile=mcp-app";
  const MODERN = "2026-07-28";
  const TOKEN_KEY = "toolhost-token";
  const HOST_TIMEOUT_MS = 30000;
  const POLL_MS = 1500;
  let framed = globalThis.parent !== globalThis;
  let nextId = 1;
  const waiting = new Map();
  const $ = (selector) => document.querySelector(selector);
  const state = {
    side: false,
    offset: 0,
    generation: 0,
    polling: undefined,
    pollRun: 0,
    procs: new Map(),
  };

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === undefined || value === false) continue;
      if (key === "class") node.className = value;
      else if (key === "text") node.textContent = value;
      else node.setAttribute(key, value === true ? "" : String(value));
    }
    for (const child of children) if (child !== undefined && child !== null) node.append(child);
    return node;
  }

  function say(text, isError) {
    const status = $("#status");
    status.textContent = text;
    status.classList.toggle("error", Boolean(isError));
  }

  // --- Talking to an MCP Apps host ---
  function post(message) {
    globalThis.parent.postMessage(message, "*");
  }

  function hostRequest(method, params) {
    const id = nextId++;
    post({ jsonrpc: "2.0", id, method, params });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(new Error(`the host did not answer ${method}`));
      }, HOST_TIMEOUT_MS);
      waiting.set(id, { resolve, reject, timer });
    });
  }

  globalThis.addEventListener("message", (event) => {
    if (!framed || event.source !== globalThis.parent) return;
    const message = event.data;
    if (!message || message.jsonrpc !== "2.0") return;
    if (message.method === undefined) {
      const pending = waiting.get(message.id);
      if (!pending) return;
      waiting.delete(message.id);
      clearTimeout(pending.timer);
      if (message.error) pending.reject(new Error(message.error.message || "the host refused"));
      else pending.resolve(message.result);
      return;
    }
    const params = message.params || {};
    switch (message.method) {
      case "ui/notifications/tool-input":
        return useToolInput(params.arguments || {});
      case "ui/notifications/tool-result":
        return refresh();
      case "ui/notifications/host-context-changed":
        return useHostContext(params);
      case "ui/resource-teardown":
        stopPolling();
        return post({ jsonrpc: "2.0", id: message.id, result: {} });
      case "ping":
        return post({ jsonrpc: "2.0", id: message.id, result: {} });
      default:
        if (message.id !== undefined) {
          post({
            jsonrpc: "2.0",
            id: message.id,
            error: { code: -32601, message: `Method not found: ${message.method}` },
          });
        }
    }
  });

  function useHostContext(context) {
    if (context.theme === "dark" || context.theme === "light") {
      document.documentElement.dataset.theme = context.theme;
    }
    const variables = (context.styles && context.styles.variables) || {};
    for (const [name, value] of Object.entries(variables)) {
      if (/^--[a-z0-9-]+$/.test(name) && typeof value === "string" && value.length < 300) {
        document.documentElement.style.setProperty(name, value);
      }
    }
  }

  function useToolInput(args) {
    let changed = false;
    if (typeof args.tool === "string") {
      ensureToolOption(args.tool);
      $("[name=filter-tool]").value = args.tool;
      changed = true;
    }
    if (typeof args.path === "string") {
      $("[name=filter-path]").value = args.path;
      changed = true;
    }
    if (changed) refresh();
  }

  // --- Talking to toolhost over HTTP (a plain browser) ---
  function headerValue(text) {
    return /^[\x20-\x7e]*$/.test(text)
      ? text
      : `=?base64?${btoa(String.fromCharCode(...new TextEncoder().encode(text)))}?=`;
  }

  async function httpRequest(method, params) {
    const id = nextId++;
    const meta = {
      "io.modelcontextprotocol/protocolVersion": MODERN,
      "io.modelcontextprotocol/clientCapabilities": {
        extensions: { [EXTENSION]: { mimeTypes: [MIME] } },
      },
    };
    const headers = {
      "content-type": "application/json",
      accept: "application/json",
      "mcp-protocol-version": MODERN,
      "mcp-method": method,
    };
    const name = method === "tools/call" ? params.name : params.uri;
    if (name !== undefined) headers["mcp-name"] = headerValue(name);
    const token = sessionStorage.getItem(TOKEN_KEY);
    if (token) headers.authorization = `Bearer ${token}`;
    const response = await fetch("/mcp", {
      method: "POST",
      headers,
      body: JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta: meta } }),
    });
    if (response.status === 401) {
      await askToken(Boolean(token));
      return httpRequest(method, params);
    }
    let message;
    try {
      message = await response.json();
    } catch {
      throw new Error(`toolhost answered ${response.status} without JSON`);
    }
    if (message.error) throw new Error(message.error.message);
    return message.result;
  }

  let tokenAsked;
  function askToken(wasWrong) {
    if (tokenAsked) return tokenAsked;
    const form = $("#token");
    form.hidden = false;
    say(
      wasWrong
        ? "That token was refused; enter the one toolhost was started with."
        : "toolhost needs its token.",
      wasWrong,
    );
    form.elements.token.focus();
    tokenAsked = new Promise((resolve) => {
      form.onsubmit = (event) => {
        event.preventDefault();
        sessionStorage.setItem(TOKEN_KEY, form.elements.token.value.trim());
        form.elements.token.value = "";
        form.hidden = true;
        tokenAsked = undefined;
        say("");
        resolve();
      };
    });
    return tokenAsked;
  }

  function request(method, params) {
    return framed ? hostRequest(method, params) : httpRequest(method, params);
  }

  function callTool(name, args) {
    return request("tools/call", { name, arguments: args });
  }

  function textOf(result) {
    return ((result && result.content) || []).filter((c) => c.type === "text").map((c) => c.text)
      .join("\n");
  }

  // --- Calls and their diffs ---
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
          const left = k < removed.length
            ? cells(a++, removed[k], "del")
            : cells("", undefined, "");
          const right = k < added.length ? cells(b++, added[k], "add") : cells("", undefined, "");
          body.append(el("tr", {}, ...left, ...right));
        }
      }
    }
    return el("table", { class: "side" }, body);
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

  // --- Background processes ---
  // Every tick reads the list (toolhost://processes) and the running ones' output: both are
  // resources/read, which toolhost does not journal, so an open page leaves history alone.
  async function pollProcesses(run = ++state.pollRun) {
    state.polling = undefined;
    const list = $("#processes");
    let processes;
    try {
      const result = await request("resources/read", { uri: "toolhost://processes" });
      const text = (result.contents || []).map((c) => c.text || "").join("");
      processes = JSON.parse(text).processes || [];
    } catch (error) {
      list.replaceChildren(
        el("p", { class: "note", text: `Background processes cannot be shown: ${error.message}` }),
      );
      return;
    }
    if (processes.length === 0) {
      list.replaceChildren(el("p", { class: "empty", text: "None started (bash_background)." }));
    } else if (list.querySelector(".empty, .note")) list.replaceChildren();
    let running = false;
    for (const proc of processes) {
      running ||= proc.status === "running";
      await showProcess(proc, list);
    }
    // A newer round (Refresh, Stop) took over while this one waited.
    if (running && !document.hidden && run === state.pollRun) {
      state.polling = setTimeout(() => pollProcesses(run), POLL_MS);
    }
  }

  async function showProcess(proc, list) {
    let entry = state.procs.get(proc.id);
    if (!entry) {
      const output = el("pre", {
        class: "output",
        tabindex: 0,
        "aria-label": `Output of ${proc.id}`,
      });
      const stop = el("button", { type: "button", "data-action": "stop", text: "Stop" });
      const status = el("p", { class: "meta" });
      const node = el(
        "article",
        { class: "process", "data-process-id": proc.id },
        el("h3", { text: `${proc.id}: ${proc.command.slice(0, 200)}` }),
        status,
        output,
        stop,
      );
      stop.addEventListener("click", () => stopProcess(proc.id, stop));
      entry = { node, output, stop, status, done: false };
      state.procs.set(proc.id, entry);
    }
    if (!entry.node.isConnected) list.append(entry.node);
    const exit = proc.status === "running"
      ? ""
      : proc.exitCode !== null
      ? ` (exit ${proc.exitCode})`
      : proc.signal
      ? ` (${proc.signal})`
      : "";
    entry.status.textContent = `${proc.status}${exit} · ${
      Math.round(proc.runtimeMs / 1000)
    } s · ${proc.outputBytes} bytes of output`;
    entry.stop.disabled = proc.status !== "running";
    if (!entry.done) await readOutput(proc.id, entry, proc.status !== "running");
  }

  async function readOutput(id, entry, finished) {
    try {
      const result = await request("resources/read", {
        uri: `toolhost://processes/${id}/output`,
      });
      const text = (result.contents || []).map((c) => c.text || "").join("");
      const atEnd =
        entry.output.scrollTop + entry.output.clientHeight >= entry.output.scrollHeight - 4;
      if (entry.output.textContent !== text) entry.output.textContent = text;
      if (atEnd) entry.output.scrollTop = entry.output.scrollHeight;
      entry.done = finished;
    } catch (error) {
      entry.output.textContent = `(output cannot be read: ${error.message})`;
    }
  }

  async function stopProcess(id, button) {
    button.disabled = true;
    try {
      const result = await callTool("bash_kill", { id });
      say(textOf(result) || `Stopped ${id}.`, result.isError);
    } catch (error) {
      say(`bash_kill was not run: ${error.message}`, true);
    }
    stopPolling();
    pollProcesses();
  }

  function stopPolling() {
    clearTimeout(state.polling);
    state.polling = undefined;
  }

  // --- Start ---
  function wire() {
    let typing;
    $("[name=filter-tool]").addEventListener("change", () => refresh());
    $("[name=filter-all]").addEventListener("change", () => refresh());
    $("[name=filter-path]").addEventListener("input", () => {
      clearTimeout(typing);
      typing = setTimeout(() => refresh(), 300);
    });
    $("[data-action=refresh]").addEventListener("click", () => {
      refresh();
      stopPolling();
      pollProcesses();
    });
    $("[data-action=more]").addEventListener("click", () => refresh(true));
    $("[data-action=view]").addEventListener("click", (event) => toggleView(event.currentTarget));
    document.addEventListener("visibilitychange", () => {
      if (!document.hidden && !state.polling) pollProcesses();
    });
  }

  async function start() {
    wire();
    if (
      !document.documentElement.dataset.theme && matchMedia("(prefers-color-scheme: dark)").matches
    ) {
      document.documentElement.dataset.theme = "dark";
    }
    if (framed) {
      try {
        const result = await hostRequest("ui/initialize", {
          appInfo: { name: "toolhost-review", version: "1.0.0" },
          appCapabilities: { availableDisplayModes: ["inline", "fullscreen"] },
          protocolVersion: "2026-01-26",
        });
        useHostContext((result && result.hostContext) || {});
        post({ jsonrpc: "2.0", method: "ui/notifications/initialized", params: {} });
        let sent = "";
        new ResizeObserver(() => {
          // The root's own box, not scrollHeight: that never falls below the frame the host
          // already gave, so a shorter list would keep the old height with a blank below.
          const size = {
            width: document.documentElement.scrollWidth,
            height: Math.ceil(document.documentElement.getBoundingClientRect().height),
          };
          if (JSON.stringify(size) === sent) return;
          sent = JSON.stringify(size);
          post({ jsonrpc: "2.0", method: "ui/notifications/size-changed", params: size });
        }).observe(document.documentElement);
      } catch {
        // Framed by a page that is no MCP Apps host: talk to toolhost directly.
        framed = false;
      }
    }
    await refresh();
    pollProcesses();
  }

  start();
})();
