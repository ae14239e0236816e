/**
 * fetch_url's `save_to`: a downloaded body written byte for byte to a file inside the allowed
 * roots, through the sandbox (the directory opened beneath its root, the write atomic there) and
 * under the file tools' lock, so no rename elsewhere can send it out of the roots.
 */
import { dirname } from "node:path";
import { type ToolContext, ToolError } from "../../../mcp/tool/mod.ts";
import {
  assertWritable,
  describeEntry,
  hardLinkNote,
  makeDirectories,
  resolveEntry,
  Sandbox,
  whileChanging,
  writeFileAtomic,
} from "../../_lib/sandbox/mod.ts";
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
  return whileChanging(async () => {
    const sandbox = await Sandbox.of(ctx);
    const target = await resolveEntry(sandbox, path);
    const shown = sandbox.display(target.real);
    if (target.link && !target.exists) {
      throw new ToolError(
        `save_to ${shown} is a symlink to a file that does not exist yet; give the final path.`,
      );
    }
    let created: string | undefined;
    if (target.exists) {
      const info = await sandbox.info(target.real);
      if (!info.isFile()) {
        throw new ToolError(
          `save_to ${shown} is a ${describeEntry(info)}; give the path of a file to write.`,
        );
      }
      await assertWritable(target.real, shown);
    } else {
      created = await makeDirectories(sandbox, dirname(target.real));
    }
    if (ctx.signal.aborted) throw new ToolError("not saved: the call was stopped first");
    let hardLinks = 1;
    try {
      hardLinks = (await writeFileAtomic(target.real, body, sandbox, {
        // The journal then knows what the file holds without reading it back, and may still
        // be opening the old file for undo.
        digest: true,
        beforeRename: () => ctx.writes.replacing(),
      })).hardLinks;
    } catch (error) {
      throw new ToolError(`could not save to ${shown}: ${(error as Error).message}.`);
    }
    const notes = [
      ...(created ? [`created the directory ${sandbox.display(created)}`] : []),
      ...(hardLinks > 1 ? [hardLinkNote(hardLinks).trim()] : []),
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
