// deno-lint-ignore-file no-unused-vars prefer-const
// toolhost's review app, in pieces that scripts/gen_review_app.ts joins, in the order it names,
// inside one strict function: they share its scope (these constants, the state, el, say, request).
// Inside an MCP Apps host (an iframe) the app speaks the host's postMessage JSON-RPC
// (ui/initialize, then tools/call and resources/read passed on to toolhost); opened from
// `toolhost --http` or `toolhost review` in a browser, it posts 2026-07-28 requests to /mcp.
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
  calls: new Map(),
  revision: undefined,
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
      return follow();
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

/** A request of ours to /mcp: its headers, the token, and the body with our capabilities. */
function mcpFetch(method, params, accept, signal) {
  const meta = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {
      extensions: { [EXTENSION]: { mimeTypes: [MIME] } },
    },
  };
  const headers = {
    "content-type": "application/json",
    accept,
    "mcp-protocol-version": MODERN,
    "mcp-method": method,
  };
  const name = method === "tools/call" ? params.name : params.uri;
  if (name !== undefined) headers["mcp-name"] = headerValue(name);
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (token) headers.authorization = `Bearer ${token}`;
  return fetch("/mcp", {
    method: "POST",
    headers,
    signal,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: nextId++,
      method,
      params: { ...params, _meta: meta },
    }),
  });
}

async function httpRequest(method, params) {
  const response = await mcpFetch(method, params, "application/json");
  if (response.status === 401) {
    await askToken(response);
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

/** The parameters of a `Bearer k="v", …` challenge. */
function challengeOf(response) {
  const header = response.headers.get("www-authenticate") || "";
  return Object.fromEntries([...header.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
}

let tokenAsked;
/**
 * Asks for what /mcp wants: the static token, or (OAuth) a sign-in at the authorization server,
 * a token pasted as the alternative.
 */
function askToken(response) {
  if (tokenAsked) return tokenAsked;
  const had = Boolean(sessionStorage.getItem(TOKEN_KEY));
  sessionStorage.removeItem(TOKEN_KEY);
  const challenge = challengeOf(response);
  const form = $("#token");
  const signIn = form.querySelector("[data-action=signin]");
  form.hidden = false;
  signIn.hidden = !challenge.resource_metadata;
  if (challenge.resource_metadata) {
    $("#token-why").textContent = "toolhost takes access tokens of your authorization server: " +
      "sign in there, or paste an access token it issued for this toolhost (scopes " +
      `${challenge.scope || "toolhost:read toolhost:write"}).`;
    signIn.onclick = () => signInAt(challenge).catch((error) => say(error.message, true));
  }
  say(
    had ? "That token was refused; enter another." : "toolhost needs a token.",
    had,
  );
  (challenge.resource_metadata ? signIn : form.elements.token).focus();
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

/** `toolhost review` puts its token in the address's fragment: kept in the tab, then dropped. */
function takeTokenFromAddress() {
  const token = new URLSearchParams(location.hash.slice(1)).get("token");
  if (!token) return;
  sessionStorage.setItem(TOKEN_KEY, token);
  history.replaceState(null, "", location.pathname + location.search);
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
