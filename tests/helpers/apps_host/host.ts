/// <reference lib="dom" />
/**
 * The host page's script, bundled for the browser (mod.ts): an MCP Apps host as a web client
 * builds one with the ext-apps SDK's host side. It connects the official MCP client to toolhost
 * over Streamable HTTP, reads the tool's `_meta.ui.resourceUri`, fetches that resource with
 * resources/read, loads it through a sandbox proxy on another origin (sandbox.html), connects an
 * AppBridge to it (which proxies the app's tools/call and resources/read to toolhost), and once
 * the app has initialized sends it the tool's input and the result of a real call.
 *
 * The page's query says where things are: `mcp` (toolhost's /mcp URL), `sandbox` (the proxy's
 * URL), `token` (optional bearer token), `theme` (the host context's: light unless "dark") and
 * `app` (optional: an HTML URL used instead of the tool's resource, for a placeholder app). Once
 * connected, `document.body.dataset.host` is "connected" and `globalThis.testHost` makes calls as
 * the model would (`call`) and opens a tool's app beside the result of a fresh call (`open`), as a
 * chat shows it. What happened is kept in `globalThis.hostState`; a failure sets
 * `data-host="failed"`.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import {
  AppBridge,
  getToolUiResourceUri,
  PostMessageTransport,
  RESOURCE_MIME_TYPE,
} from "@modelcontextprotocol/ext-apps/app-bridge";

/** The extension's key in capabilities (the SDK exports it only from its server entry). */
const APPS_EXTENSION = "io.modelcontextprotocol/ui";

interface HostState {
  phase: string;
  error?: string;
  resourceUri?: string;
  mimeType?: string;
  /**
   * The resource's `_meta.ui` (csp, permissions, ...): the sandbox applies the strict policy of
   * an app that declares no domains, so a test checks that it declares none.
   */
  resourceUi?: unknown;
  appInfo?: unknown;
  /** Every tools/call the app made through the bridge, in order, with what it was told. */
  appCalls: { name: string; arguments?: unknown; result?: unknown }[];
}

const state: HostState = { phase: "starting", appCalls: [] };
(globalThis as unknown as { hostState: HostState }).hostState = state;

/** The tallest the app may ask its frame to be. */
const MAX_FRAME_HEIGHT = 4000;

interface TestHost {
  /** A tools/call as the model makes it, through the host's one connection. */
  call(name: string, args: Record<string, unknown>): Promise<unknown>;
  /** Calls `toolName` and shows its app beside the result; settles once the app has it. */
  open(toolName: string, args?: Record<string, unknown>): Promise<void>;
}

async function main(): Promise<void> {
  const query = new URLSearchParams(location.search);
  const mcpUrl = required(query, "mcp");
  const sandboxUrl = new URL(required(query, "sandbox"));
  sandboxUrl.searchParams.set("host", location.origin);
  const token = query.get("token");

  state.phase = "connecting";
  // A host that renders apps says so (SEP-1865): servers may offer _meta.ui only to such hosts.
  const client = new Client({ name: "toolhost-test-host", version: "1.0.0" }, {
    capabilities: {
      extensions: { [APPS_EXTENSION]: { mimeTypes: [RESOURCE_MIME_TYPE] } },
    },
  });
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  await client.connect(
    new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers } }),
  );
  const testHost: TestHost = {
    call: (name, args) => client.callTool({ name, arguments: args }),
    open: (toolName, args = {}) =>
      openApp(client, toolName, args, sandboxUrl, query.get("app")).catch(failed),
  };
  (globalThis as unknown as { testHost: TestHost }).testHost = testHost;
  state.phase = "connected";
  document.body.dataset.host = "connected";
}

async function openApp(
  client: Client,
  toolName: string,
  args: Record<string, unknown>,
  sandboxUrl: URL,
  placeholder: string | null,
): Promise<void> {
  state.phase = "reading the app";
  const { tools } = await client.listTools();
  const tool = tools.find((candidate) => candidate.name === toolName);
  if (!tool) throw new Error(`toolhost offers no tool named ${toolName}`);
  const html = await appHtml(client, tool, placeholder);

  state.phase = "loading the sandbox";
  const frame = document.createElement("iframe");
  frame.title = `${toolName} app`;
  frame.setAttribute("sandbox", "allow-scripts allow-same-origin allow-forms");
  frame.style.cssText = "width: 100%; height: 640px; border: 0;";
  document.getElementById("app")!.replaceChildren(frame);

  const bridge = new AppBridge(
    client,
    { name: "toolhost-test-host", version: "1.0.0" },
    { serverTools: {}, serverResources: {}, logging: {} },
    {
      hostContext: {
        theme: new URLSearchParams(location.search).get("theme") === "dark" ? "dark" : "light",
        displayMode: "inline",
        availableDisplayModes: ["inline"],
        platform: "web",
        locale: "en-US",
        containerDimensions: { maxHeight: MAX_FRAME_HEIGHT, width: 960 },
        toolInfo: { tool },
      },
    },
  );
  bridge.addEventListener("sizechange", ({ height }) => {
    if (typeof height === "number" && height > 0) {
      frame.style.height = `${Math.min(Math.ceil(height), MAX_FRAME_HEIGHT)}px`;
    }
  });
  bridge.addEventListener("sandboxready", () => {
    state.phase = "loading the app";
    void bridge.sendSandboxResourceReady({ html, sandbox: "allow-scripts allow-forms" });
  });
  const initialized = new Promise<void>((resolve) =>
    bridge.addEventListener("initialized", () => resolve())
  );
  // Listening before the proxy loads, so its ready notification is not missed.
  await bridge.connect(new PostMessageTransport(frame.contentWindow!, frame.contentWindow!));
  // connect() made the bridge forward the app's tools/call to toolhost; this only records them.
  const forward = bridge.oncalltool!;
  bridge.oncalltool = async (params, extra) => {
    const call: HostState["appCalls"][number] = { name: params.name, arguments: params.arguments };
    state.appCalls.push(call);
    call.result = await forward(params, extra);
    return call.result as Awaited<ReturnType<typeof forward>>;
  };
  frame.src = sandboxUrl.href;
  await initialized;
  state.appInfo = bridge.getAppVersion();

  state.phase = `calling ${toolName}`;
  await bridge.sendToolInput({ arguments: args });
  const result = await client.callTool({ name: toolName, arguments: args });
  await bridge.sendToolResult(result as Parameters<typeof bridge.sendToolResult>[0]);
  state.phase = "ready";
}

/** The app's HTML: the tool's ui:// resource, read as a host does; or the placeholder's. */
async function appHtml(
  client: Client,
  tool: Parameters<typeof getToolUiResourceUri>[0],
  placeholder: string | null,
): Promise<string> {
  if (placeholder) {
    state.resourceUri = placeholder;
    return await (await fetch(placeholder)).text();
  }
  const uri = getToolUiResourceUri(tool);
  if (!uri) {
    throw new Error(`the tool ${tool.name} names no ui:// resource in _meta.ui.resourceUri`);
  }
  state.resourceUri = uri;
  const { contents } = await client.readResource({ uri });
  const content = contents.find((item) => item.uri === uri) ?? contents[0];
  if (!content || !("text" in content)) throw new Error(`resources/read of ${uri} gave no text`);
  state.mimeType = content.mimeType;
  state.resourceUi = (content._meta as { ui?: unknown } | undefined)?.ui;
  return content.text;
}

function required(query: URLSearchParams, name: string): string {
  const value = query.get(name);
  if (!value) throw new Error(`the host page needs ?${name}=`);
  return value;
}

function failed(error: unknown): never {
  state.error = error instanceof Error ? `${error.message}\n${error.stack}` : String(error);
  state.phase = "failed";
  document.body.dataset.host = "failed";
  document.getElementById("error")!.textContent = state.error;
  throw error;
}

main().catch(failed);
