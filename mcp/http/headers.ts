/**
 * The 2026-07-28 request headers over HTTP: MCP-Protocol-Version, Mcp-Method, Mcp-Name and the
 * Mcp-Param-* mirrors of tool arguments a schema marks with `x-mcp-header` must agree with the
 * body, so that nothing routing on headers sees another request than the one we run.
 */
import { quoted, quotedJson } from "../../config/quote.ts";
import {
  isPlainObject,
  type JsonRpcRequest,
  RpcError,
  UNSUPPORTED_PROTOCOL_VERSION,
} from "../wire/jsonrpc.ts";
import { META_PROTOCOL_VERSION, SUPPORTED_VERSIONS } from "../wire/versions.ts";

export const HEADER_MISMATCH = -32020;

/** Methods whose target travels in Mcp-Name, and where it sits in params. */
const NAMED: Record<string, "name" | "uri" | "taskId"> = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
  // The tasks extension routes a task's requests to the server holding it.
  "tasks/get": "taskId",
  "tasks/update": "taskId",
  "tasks/cancel": "taskId",
};

const mismatch = (message: string) => new RpcError(HEADER_MISMATCH, `Header mismatch: ${message}`);

/**
 * Throws -32022 for a version header we do not speak and -32020 when a header is missing or
 * disagrees with the body. `headerParams` gives the tool's `x-mcp-header` properties.
 */
export function checkModernHeaders(
  headers: Headers,
  request: JsonRpcRequest,
  headerParams: (tool: string) => HeaderParam[],
): void {
  const params = request.params ?? {};
  const meta = isPlainObject(params._meta) ? params._meta : {};
  const version = headers.get("mcp-protocol-version");
  if (version === null) throw mismatch("the MCP-Protocol-Version header is required");
  if (!SUPPORTED_VERSIONS.includes(version)) {
    throw new RpcError(
      UNSUPPORTED_PROTOCOL_VERSION,
      `Unsupported protocol version ${version}; supported: ${SUPPORTED_VERSIONS.join(", ")}`,
      { supported: SUPPORTED_VERSIONS, requested: version },
    );
  }
  if (version !== meta[META_PROTOCOL_VERSION]) {
    throw mismatch(
      `MCP-Protocol-Version ${version} differs from _meta["${META_PROTOCOL_VERSION}"] ${
        JSON.stringify(meta[META_PROTOCOL_VERSION])
      }`,
    );
  }
  const method = headers.get("mcp-method");
  if (method === null) throw mismatch("the Mcp-Method header is required");
  if (method !== request.method) {
    throw mismatch(
      `Mcp-Method ${quoted(method)} differs from the body's method ${quoted(request.method)}`,
    );
  }
  const field = NAMED[request.method];
  if (!field) return;
  const raw = headers.get("mcp-name");
  if (raw === null) throw mismatch(`the Mcp-Name header is required for ${request.method}`);
  const name = decodeHeaderValue(raw, "Mcp-Name");
  if (name !== params[field]) {
    throw mismatch(
      `Mcp-Name ${quoted(name)} differs from params.${field} ${quotedJson(params[field])}`,
    );
  }
  if (request.method === "tools/call" && typeof params.name === "string") {
    const args = isPlainObject(params.arguments) ? params.arguments : {};
    for (const param of headerParams(params.name)) checkParam(headers, param, args);
  }
}

/** One argument a tool's schema mirrors into `Mcp-Param-<header>`. */
export interface HeaderParam {
  header: string;
  path: string[];
}

/**
 * headerParamsOf for tools by name, each worked out once. Only tools that exist are remembered:
 * a client may name any number that do not.
 */
export function headerParamsCache(
  schemaOf: (tool: string) => unknown,
): (tool: string) => HeaderParam[] {
  const known = new Map<string, HeaderParam[]>();
  return (tool) => {
    const found = known.get(tool);
    if (found) return found;
    const schema = schemaOf(tool);
    if (schema === undefined) return [];
    const params = headerParamsOf(schema);
    known.set(tool, params);
    return params;
  };
}

/** The `x-mcp-header` properties of a schema, reached through `properties` alone. */
export function headerParamsOf(schema: unknown, path: string[] = []): HeaderParam[] {
  if (!isPlainObject(schema) || !isPlainObject(schema.properties)) return [];
  const found: HeaderParam[] = [];
  for (const [key, property] of Object.entries(schema.properties)) {
    if (!isPlainObject(property)) continue;
    const header = property["x-mcp-header"];
    if (typeof header === "string" && header !== "") found.push({ header, path: [...path, key] });
    found.push(...headerParamsOf(property, [...path, key]));
  }
  return found;
}

function checkParam(headers: Headers, { header, path }: HeaderParam, args: unknown): void {
  let value: unknown = args;
  for (const key of path) value = isPlainObject(value) ? value[key] : undefined;
  const raw = headers.get(`mcp-param-${header}`);
  const label = `Mcp-Param-${header}`;
  if (value === undefined || value === null) {
    if (raw !== null) throw mismatch(`${label} is sent but arguments.${path.join(".")} is not`);
    return;
  }
  if (raw === null) throw mismatch(`${label} is required: arguments.${path.join(".")} is set`);
  const text = decodeHeaderValue(raw, label);
  const same = typeof value === "number"
    ? text.trim() !== "" && Number(text) === value
    : typeof value === "boolean"
    ? text === String(value)
    : text === value;
  if (!same) {
    throw mismatch(`${label} ${quoted(text)} differs from arguments.${path.join(".")}`);
  }
}

/**
 * A header value as sent: plain, or `=?base64?…?=` for what a header cannot carry. Plain values
 * lose the surrounding whitespace HTTP allows; encoded ones must be exact base64 of UTF-8.
 */
export function decodeHeaderValue(raw: string, label: string): string {
  const value = raw.trim();
  const encoded = value.match(/^=\?base64\?(.*)\?=$/s);
  if (!encoded) return value;
  const data = encoded[1];
  if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(data)) {
    throw mismatch(`${label} is not valid base64 between =?base64? and ?=`);
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(
      Uint8Array.from(atob(data), (c) => c.charCodeAt(0)),
    );
  } catch {
    throw mismatch(`${label} does not decode to UTF-8 text`);
  }
}

/** Whether a request's params name a 2026-07-28 version in `_meta` (else it is legacy). */
export function isModern(params: unknown): boolean {
  return isPlainObject(params) && isPlainObject(params._meta) &&
    META_PROTOCOL_VERSION in params._meta;
}
