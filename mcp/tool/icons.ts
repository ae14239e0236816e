/**
 * Icons as MCP 2025-11-25 and 2026-07-28 define them (`Icon`), for the server and its tools:
 * inline `data:` URIs only, so no client ever fetches anything to show them.
 */

export interface Icon {
  /** A `data:` URI with base64 content (the schema also allows https, which toolhost never uses). */
  src: string;
  mimeType?: string;
  /** "48x48" or "any" (scalable). */
  sizes?: string[];
  theme?: "light" | "dark";
}

/**
 * An icon from a small SVG drawing: base64 in a `data:` URI, as the schema asks. The drawing is
 * ours (a few shapes, no script, no external reference), so clients can show it safely.
 *
 * @example
 * svgIcon('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><circle cx="8" cy="8" r="6"/></svg>')
 */
export function svgIcon(svg: string): Icon {
  if (/<script|href=|on[a-z]+=/i.test(svg)) throw new Error("an icon's SVG must be inert");
  return { src: `data:image/svg+xml;base64,${btoa(svg)}` };
}
