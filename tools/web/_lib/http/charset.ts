/**
 * Bytes of a web response to text, in the order browsers decide: a byte-order mark, then the
 * charset of the Content-Type header, then one declared in the document's first bytes (HTML
 * `<meta>`, XML declaration), else UTF-8. Unknown labels fall back to UTF-8 rather than fail.
 */

const BOMS: [number[], string][] = [
  [[0xef, 0xbb, 0xbf], "utf-8"],
  [[0xff, 0xfe], "utf-16le"],
  [[0xfe, 0xff], "utf-16be"],
];

/** How far into a document a declared charset is looked for (the HTML spec says 1024). */
const SNIFF_BYTES = 4096;

export function charsetFromContentType(contentType: string | undefined): string | undefined {
  return contentType?.match(/;\s*charset\s*=\s*"?([^";\s]+)/i)?.[1];
}

/** A charset the document declares about itself in its first bytes. */
export function declaredCharset(head: Uint8Array): string | undefined {
  // latin1 maps each byte to one character, so ASCII markup is found whatever the encoding.
  const text = new TextDecoder("windows-1252").decode(head.subarray(0, SNIFF_BYTES));
  return text.match(/<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)/i)?.[1] ??
    text.match(/^\s*<\?xml[^>]+encoding\s*=\s*["']([\w.:-]+)/i)?.[1];
}

function decoderFor(label: string | undefined): TextDecoder | undefined {
  if (!label) return undefined;
  try {
    return new TextDecoder(label.trim().toLowerCase());
  } catch {
    return undefined;
  }
}

export function decodeText(body: Uint8Array, contentType?: string): string {
  for (const [mark, encoding] of BOMS) {
    if (mark.every((byte, i) => body[i] === byte)) {
      return new TextDecoder(encoding).decode(body.subarray(mark.length));
    }
  }
  const fromHeader = decoderFor(charsetFromContentType(contentType));
  if (fromHeader) return fromHeader.decode(body);
  const declared = decoderFor(declaredCharset(body));
  // A page that says UTF-16 in its own ASCII bytes cannot be UTF-16: browsers read it as UTF-8.
  const usable = declared && !declared.encoding.startsWith("utf-16") ? declared : undefined;
  return (usable ?? new TextDecoder("utf-8")).decode(body);
}
