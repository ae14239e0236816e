/** What a file holds, told from its first bytes: text (and its encoding), an image, or other binary. */
import type { FileHandle } from "node:fs/promises";
import { binaryKind, bomOf, type Encoding, imageType, SNIFF_BYTES } from "./text.ts";

export type Sniffed =
  & (
    | { kind: "text"; encoding: Encoding; /** bytes of the byte order mark */ bomBytes: number }
    | { kind: "image"; mimeType: string; description: string }
    | { kind: "binary"; description: string }
  )
  & { /** The first bytes, as read: the whole file when it is that small. */ head: Uint8Array };

export async function sniff(handle: FileHandle): Promise<Sniffed> {
  const head = new Uint8Array(SNIFF_BYTES);
  const { bytesRead } = await handle.read(head, 0, SNIFF_BYTES, 0);
  const bytes = head.subarray(0, bytesRead);
  const binary = binaryKind(bytes);
  const mimeType = imageType(bytes);
  if (mimeType) return { kind: "image", mimeType, description: binary ?? mimeType, head: bytes };
  if (binary) return { kind: "binary", description: binary, head: bytes };
  // Only the encoding and BOM are wanted here; the text itself is read line by line.
  const bom = bomOf(bytes);
  return {
    kind: "text",
    encoding: bom?.encoding ?? "utf-8",
    bomBytes: bom?.length ?? 0,
    head: bytes,
  };
}

/** How an encoding reads in results. */
export function encodingName(encoding: Encoding, bomBytes: number): string {
  const name = { "utf-8": "UTF-8", "utf-16le": "UTF-16 LE", "utf-16be": "UTF-16 BE" }[encoding];
  return bomBytes > 0 ? `${name} with BOM` : name;
}
