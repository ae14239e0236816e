/**
 * Telling text from binary and decoding it faithfully: a BOM decides the encoding (UTF-8,
 * UTF-16 LE/BE); without one, NUL bytes or a known binary signature mean binary, and anything
 * else is UTF-8 whose invalid bytes are reported rather than crashed on.
 */
import { Buffer, isUtf8 } from "node:buffer";

export type Encoding = "utf-8" | "utf-16le" | "utf-16be";

export interface DecodedText {
  text: string;
  encoding: Encoding;
  /** Whether the file starts with a byte order mark (kept out of `text`). */
  bom: boolean;
  /** Byte sequences that were not valid in the encoding, shown as U+FFFD in `text`. */
  invalid: number;
}

/** How many leading bytes are enough to tell what a file is. */
export const SNIFF_BYTES = 8192;

const SIGNATURES: [number[], string, string?][] = [
  [[0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], "PNG image", "image/png"],
  [[0xff, 0xd8, 0xff], "JPEG image", "image/jpeg"],
  [[0x47, 0x49, 0x46, 0x38], "GIF image", "image/gif"],
  [[0x25, 0x50, 0x44, 0x46, 0x2d], "PDF document"],
  [[0x50, 0x4b, 0x03, 0x04], "ZIP archive (also docx, xlsx, jar, ...)"],
  [[0x1f, 0x8b], "gzip-compressed data"],
  [[0x7f, 0x45, 0x4c, 0x46], "ELF executable or library"],
  [[0xcf, 0xfa, 0xed, 0xfe], "Mach-O executable"],
  [[0x4d, 0x5a], "Windows executable"],
  [[0x00, 0x61, 0x73, 0x6d], "WebAssembly module"],
  [[0x53, 0x51, 0x4c, 0x69, 0x74, 0x65, 0x20, 0x66], "SQLite database"],
];

function startsWith(bytes: Uint8Array, prefix: number[], at = 0): boolean {
  return prefix.every((byte, i) => bytes[at + i] === byte);
}

/**
 * The signature `head` starts with. One made only of printable characters ("GIF8", "%PDF-",
 * "MZ", "SQLite f") is also how a text file can start, so it counts only with a NUL byte in the
 * head, which the real formats always have.
 */
function signatureOf(head: Uint8Array): [number[], string, string?] | undefined {
  const hasNul = head.subarray(0, SNIFF_BYTES).includes(0);
  const printable = (signature: number[]) => signature.every((b) => b >= 0x20 && b < 0x7f);
  if (hasNul && startsWith(head, RIFF) && startsWith(head, WEBP, 8)) {
    return [RIFF, "WebP image", "image/webp"];
  }
  return SIGNATURES.find(([signature]) =>
    startsWith(head, signature) && (hasNul || !printable(signature))
  );
}

const RIFF = [0x52, 0x49, 0x46, 0x46];
const WEBP = [0x57, 0x45, 0x42, 0x50];

/** The image MIME type of the file that starts with `head`, for the formats clients display. */
export function imageType(head: Uint8Array): string | undefined {
  return signatureOf(head)?.[2];
}

/** The encoding a byte order mark announces, and its length. */
export function bomOf(head: Uint8Array): { encoding: Encoding; length: number } | undefined {
  if (startsWith(head, [0xef, 0xbb, 0xbf])) return { encoding: "utf-8", length: 3 };
  if (startsWith(head, [0xff, 0xfe])) return { encoding: "utf-16le", length: 2 };
  if (startsWith(head, [0xfe, 0xff])) return { encoding: "utf-16be", length: 2 };
  return undefined;
}

/** A description of a binary file, or undefined when `head` looks like text. */
export function binaryKind(head: Uint8Array): string | undefined {
  if (bomOf(head)) return undefined;
  return signatureOf(head)?.[1] ??
    (head.subarray(0, SNIFF_BYTES).includes(0) ? "binary data" : undefined);
}

/** Decodes a whole file's bytes; null when they are binary. */
export function decodeText(bytes: Uint8Array): DecodedText | null {
  if (binaryKind(bytes.subarray(0, SNIFF_BYTES))) return null;
  const bom = bomOf(bytes);
  const encoding = bom?.encoding ?? "utf-8";
  const body = bytes.subarray(bom?.length ?? 0);
  // UTF-8 that checks out is decoded the fast way.
  if (encoding === "utf-8" && isUtf8(body)) {
    const text = Buffer.from(body.buffer, body.byteOffset, body.length).toString("utf8");
    return { text, encoding, bom: !!bom, invalid: 0 };
  }
  // ignoreBOM: the BOM is off `body` already; a second one is content, kept as U+FEFF.
  try {
    return {
      text: new TextDecoder(encoding, { fatal: true, ignoreBOM: true }).decode(body),
      encoding,
      bom: !!bom,
      invalid: 0,
    };
  } catch {
    const text = new TextDecoder(encoding, { ignoreBOM: true }).decode(body);
    const replaced = text.match(/\uFFFD/g)?.length ?? 0;
    return { text, encoding, bom: !!bom, invalid: replaced };
  }
}

/** Encodes text back the way it was read: same encoding, BOM kept. */
export function encodeText(text: string, encoding: Encoding, bom: boolean): Uint8Array {
  if (encoding === "utf-8") {
    const body = new TextEncoder().encode(text);
    if (!bom) return body;
    const out = new Uint8Array(body.length + 3);
    out.set([0xef, 0xbb, 0xbf]);
    out.set(body, 3);
    return out;
  }
  const out = new Uint8Array(text.length * 2 + (bom ? 2 : 0));
  const view = new DataView(out.buffer);
  const littleEndian = encoding === "utf-16le";
  let at = 0;
  if (bom) {
    view.setUint16(0, 0xfeff, littleEndian);
    at = 2;
  }
  for (let i = 0; i < text.length; i++, at += 2) {
    view.setUint16(at, text.charCodeAt(i), littleEndian);
  }
  return out;
}
