/**
 * file:///{+path}: any file inside the allowed roots, read through the same sandbox as
 * read_file (symlinks resolved, then checked), so a URI can reach no more than that tool can.
 * Text comes back as text; other bytes as a base64 blob, up to MAX_BYTES either way. Clients
 * may subscribe to a file's changes.
 */
import { Buffer } from "node:buffer";
import { defineResourceTemplate, ResourceNotFound } from "../../mcp/features/mod.ts";
import { ToolError } from "../../mcp/tool/mod.ts";
import { describeEntry, Sandbox, whileReading } from "../_lib/sandbox/mod.ts";
import { mimeTypeOf } from "./_lib/mime_types.ts";
import { completePath } from "./_lib/path_completion.ts";
import { searchFiles } from "./_lib/file_search.ts";
import { decodeText, imageType, SNIFF_BYTES } from "../_lib/text/text.ts";
import { bytes } from "../_lib/text/units.ts";
import { startWatch, watchFile } from "../_lib/watch/watch_files.ts";

/** A resource is read whole, so it is bounded as a whole: the size read_file takes images to. */
export const MAX_BYTES = 5 * 1024 * 1024;

export default defineResourceTemplate({
  uriTemplate: "file:///{+path}",
  name: "file",
  title: "File in the allowed roots",
  description: "A file inside the allowed roots (see list_roots), by its absolute path. Text " +
    `files come back as text, others as base64; at most ${bytes(MAX_BYTES)}. Paths outside ` +
    "the roots, also through symbolic links, are refused.",
  requires: "read_file",
  read: ({ path }, ctx) =>
    whileReading(async () => {
      const sandbox = await Sandbox.of(ctx);
      const { real, exists } = await sandbox.resolve(`/${path}`);
      const shown = sandbox.display(real);
      if (!exists) throw new ResourceNotFound(`${shown} does not exist`);
      const info = await sandbox.info(real);
      if (!info.isFile()) {
        throw new ToolError(
          `${shown} is a ${describeEntry(info)}, not a regular file; only files can be read`,
        );
      }
      if (info.size > MAX_BYTES) {
        throw new ToolError(
          `${shown} is ${bytes(info.size)}, over the ${bytes(MAX_BYTES)} a resource may be; ` +
            "read it in parts with the read_file tool",
        );
      }
      const handle = await sandbox.openForReading(real);
      let data: Uint8Array;
      try {
        // At most one byte past the cap, whatever the stat said: /proc files say 0, logs grow.
        const buffer = new Uint8Array(MAX_BYTES + 1);
        let length = 0;
        while (length < buffer.length) {
          const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
          if (bytesRead === 0) break;
          length += bytesRead;
        }
        data = buffer.subarray(0, length);
      } finally {
        await handle.close();
      }
      if (data.length > MAX_BYTES) {
        throw new ToolError(
          `${shown} holds more than ${bytes(MAX_BYTES)}, over what a resource may be; read it in ` +
            "parts with the read_file tool",
        );
      }
      const decoded = decodeText(data);
      const named = mimeTypeOf(real);
      if (decoded) return { text: decoded.text, mimeType: named ?? "text/plain" };
      const sniffed = imageType(data.subarray(0, SNIFF_BYTES));
      return {
        blob: Buffer.from(data).toString("base64"),
        mimeType: sniffed ?? named ?? "application/octet-stream",
      };
    }),
  complete: { path: (value, ctx) => completePath(value, ctx) },
  search: (query, ctx, limit) => searchFiles(query, ctx, limit),
  // The file through its directory: editors and write_file replace files by rename. A path
  // outside the roots is never watched (the sandbox refuses it, and the refusal is logged).
  watch: ({ path }, ctx, changed) =>
    startWatch(ctx, `file:///${path}`, async (group) => {
      const { real } = await (await Sandbox.of(ctx)).resolve(`/${path}`);
      group.add(watchFile(real, changed));
    }),
});
