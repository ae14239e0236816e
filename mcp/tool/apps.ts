/**
 * MCP Apps (SEP-1865, extension `io.modelcontextprotocol/ui`): a tool may name a `ui://` page
 * that a client renders beside its result, and a tool may be meant for that page alone. Both are
 * shown only to clients that announce the extension: others get the plain tools they know.
 */
import { isPlainObject, type Params } from "../wire/jsonrpc.ts";

export const APPS_EXTENSION = "io.modelcontextprotocol/ui";
export const APP_MIME_TYPE = "text/html;profile=mcp-app";

/** What a tool says about apps (`_meta.ui` once listed). */
export interface ToolUi {
  /** The `ui://` resource a client renders beside the tool's result. */
  resourceUri?: string;
  /** Who may call it: the model, the app, or both (the default). */
  visibility?: readonly ("model" | "app")[];
}

/**
 * Whether the client announced that it renders app pages (capabilities.extensions with our
 * MIME type).
 *
 * @example
 * ```ts
 * rendersApps({ extensions: { "io.modelcontextprotocol/ui": { mimeTypes: [APP_MIME_TYPE] } } });
 * // true
 * ```
 */
export function rendersApps(capabilities: Params): boolean {
  const extensions = capabilities.extensions;
  if (!isPlainObject(extensions)) return false;
  const settings = extensions[APPS_EXTENSION];
  return isPlainObject(settings) && Array.isArray(settings.mimeTypes) &&
    settings.mimeTypes.includes(APP_MIME_TYPE);
}

/** A tool meant for its app alone: never listed to (or callable by) a client without apps. */
export function appOnly(ui: ToolUi | undefined): boolean {
  return ui?.visibility !== undefined && !ui.visibility.includes("model");
}

/** The tool's `_meta` for a client that renders apps (with the older flat key, for old hosts). */
export function toolUiMeta(ui: ToolUi): Record<string, unknown> {
  const meta: Record<string, unknown> = { ui };
  if (ui.resourceUri) meta["ui/resourceUri"] = ui.resourceUri;
  return meta;
}
