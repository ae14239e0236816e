/**
 * fetch_url's `save_to`: a downloaded body written byte for byte to a file inside the allowed
 * roots, through the edit transaction like any other file a tool replaces (checked, kept for
 * undo, written beneath the roots atomically, under the file tools' lock).
 */
import { type ToolContext, ToolError } from "../../../mcp/tool/mod.ts";
import { describeEntry } from "../../_lib/sandbox/mod.ts";
import { transaction } from "../../_lib/transaction/mod.ts";
import { bytes as size, count } from "../../_lib/text/units.ts";
import { HttpError, httpGet, HttpTimeoutError } from "./http/http_get.ts";
import { proxyRulesOf } from "../../_lib/net/user_proxy.ts";

export interface Saved {
  /** The file as results show paths (relative to the first root when inside it). */
  path: string;
  /** Whether an existing file was replaced. */
  replaced: boolean;
  /** A note for the result: a created directory, other hard links. */
  note: string;
}

export function saveBody(ctx: ToolContext, path: string, body: Uint8Array): Promise<Saved> {
  return transaction(ctx, async (tx) => {
    const target = await tx.target(path);
    const { shown, info } = target;
    let created: string | undefined;
    if (info && !info.isFile()) {
      throw new ToolError(
        `save_to ${shown} is a ${describeEntry(info)}; give the path of a file to write.`,
      );
    }
    if (!info) created = await tx.makeParents(target);
    if (ctx.signal.aborted) throw new ToolError("not saved: the call was stopped first");
    const { note } = await tx.replace(target, body);
    const notes = [
      ...(created ? [`created the directory ${tx.sandbox.display(created)}`] : []),
      ...(note ? [note.trim()] : []),
    ];
    return { path: shown, replaced: target.exists, note: notes.join("; ") };
  });
}

/** fetch_url with save_to: the download written to the file, described, never returned. */
export async function fetchToFile(
  url: string,
  path: string,
  options: { timeoutMs: number; render: boolean },
  ctx: ToolContext,
) {
  if (options.render) {
    throw new ToolError("save_to saves the bytes the server sends; leave out render with it.");
  }
  const maxBytes = ctx.config.limits.fetchMaxBytes;
  let response;
  try {
    response = await httpGet(url, {
      signal: ctx.signal,
      timeoutMs: options.timeoutMs,
      // One byte over the cap tells a body of exactly the cap from a longer one.
      maxBytes: maxBytes + 1,
      allowPrivateNetwork: ctx.config.allowPrivateNetwork,
      proxy: proxyRulesOf(ctx.config),
      // The file as stored on the server: a .tar.gz stays gzipped.
      acceptEncoding: "identity",
    });
  } catch (error) {
    if (ctx.signal.aborted) throw new ToolError("The fetch was cancelled; nothing was saved.");
    if (error instanceof HttpTimeoutError) {
      throw new ToolError(`${error.message} Nothing was saved; give a larger timeout_ms.`);
    }
    if (error instanceof HttpError) throw new ToolError(`${error.message} Nothing was saved.`);
    throw error;
  }
  const type = (response.headers["content-type"] ?? "application/octet-stream").split(";")[0]
    .trim().toLowerCase();
  if (response.status < 200 || response.status > 299) {
    throw new ToolError(
      `${url} answered HTTP ${response.status} (${type}); nothing was saved.`,
    );
  }
  if (response.truncated) {
    throw new ToolError(
      `${url} is larger than the ${size(maxBytes)} download cap (limits.fetch_max_bytes); ` +
        "nothing was saved. Download it with a command (for example curl -o) instead.",
    );
  }
  const saved = await saveBody(ctx, path, response.body);
  const length = response.body.length;
  const redirected = response.redirects.length ? `, redirected to ${response.url}` : "";
  return {
    content: `${saved.replaced ? "Replaced" : "Saved"} ${saved.path}: ${size(length)}` +
      `${length >= 1024 ? ` (${count(length)} bytes)` : ""} of ${type} from ${url} ` +
      `(HTTP ${response.status}${redirected})${saved.note ? `; ${saved.note}` : ""}.`,
    structured: {
      url,
      final_url: response.url,
      status: response.status,
      content_type: type,
      start_index: 0,
      download_truncated: false,
      saved_to: saved.path,
      bytes: length,
    },
  };
}
