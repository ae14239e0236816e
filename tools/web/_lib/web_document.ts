/**
 * What a fetched response becomes for the model: HTML converted (markdown, text or cleaned HTML,
 * main content only unless raw), JSON pretty-printed, other text as it is, a displayable image
 * as image content, and any other binary described rather than dumped.
 */
import type { HttpResponse } from "./http/http_get.ts";
import { bodyText, type BodyTextJob } from "./convert/body_text.ts";
import { binaryKind, imageType, SNIFF_BYTES } from "../../_lib/text/text.ts";
import { bytes } from "../../_lib/text/units.ts";
import { recognize } from "../../_lib/documents/formats.ts";
import { DocumentError } from "../../_lib/documents/types.ts";
import { ToolError } from "../../../mcp/tool/mod.ts";

export type Format = "markdown" | "text" | "html";

export type WebDocument =
  | { kind: "text"; contentType: string; title?: string; text: string; extracted: boolean }
  | { kind: "image"; contentType: string; data: string; size: number }
  | { kind: "binary"; contentType: string; description: string };

/** Images larger than this are described, not sent: clients refuse big images anyway. */
export const MAX_IMAGE_BYTES = 3 * 1024 * 1024;

const DISPLAYABLE_IMAGES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

function mediaType(response: HttpResponse): string {
  return (response.headers["content-type"] ?? "").split(";")[0].trim().toLowerCase();
}

/** Whether text starts (after blanks and comments) like an HTML document. */
function looksLikeHtml(text: string): boolean {
  let at = 0;
  for (;;) {
    while (at < text.length && /\s/.test(text[at])) at++;
    if (!text.startsWith("<!--", at)) break;
    const end = text.indexOf("-->", at + 4);
    if (end < 0) return false;
    at = end + 3;
  }
  return /^<(!doctype\s+html|html|head|body)[\s>]/i.test(text.slice(at, at + 20));
}

/** Valid UTF-8 (or ASCII) without NUL bytes: text, whatever the server called it. */
function isUtf8Text(body: Uint8Array): boolean {
  if (body.subarray(0, SNIFF_BYTES).includes(0)) return false;
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(body);
    return true;
  } catch {
    return false;
  }
}

const isJson = (type: string) => type === "application/json" || type.endsWith("+json");
const isHtml = (type: string) => type === "text/html" || type === "application/xhtml+xml";
const isText = (type: string) =>
  type.startsWith("text/") || isJson(type) || type.endsWith("+xml") ||
  [
    "application/xml",
    "application/javascript",
    "application/ecmascript",
    "application/x-yaml",
    "application/yaml",
    "application/toml",
  ].includes(type);

/** The kind of body, from its Content-Type, or from its first bytes when that is missing or vague. */
function classify(
  response: HttpResponse,
): { type: string; as: "html" | "text" | "image" | "binary" } {
  const declared = mediaType(response);
  const head = response.body.subarray(0, SNIFF_BYTES);
  const sniffedImage = imageType(head);
  // Only bytes that really are an image go out as one: clients reject a broken image block.
  if (sniffedImage) return { type: sniffedImage, as: "image" };
  if (declared.startsWith("image/") && declared !== "image/svg+xml" && binaryKind(head)) {
    return { type: declared, as: "image" };
  }
  if (isHtml(declared)) return { type: declared, as: "html" };
  if (isText(declared)) return { type: declared, as: "text" };
  if (binaryKind(head) || !isUtf8Text(response.body)) {
    return { type: declared || "application/octet-stream", as: "binary" };
  }
  // Text under a vague or wrong type (application/x-ndjson, video/mp2t for .ts files).
  const start = new TextDecoder().decode(head.subarray(0, 2048));
  return { type: declared || "text/plain", as: looksLikeHtml(start) ? "html" : "text" };
}

/** Characters a fetched document's text may have (fetch_url reads it in parts). */
const MAX_DOCUMENT_CHARS = 2_000_000;

/**
 * A PDF, .docx, .xlsx or notebook, as text, through read_file's extractors (in a worker); undefined
 * for other bodies. A body cut by the download cap is described rather than read as damaged.
 */
async function extractedDocument(
  response: HttpResponse,
  type: string,
  signal?: AbortSignal,
): Promise<WebDocument | undefined> {
  const name = new URL(response.url).pathname;
  const recognized = recognize(name, response.body.subarray(0, 1024), type);
  if (!recognized) return undefined;
  if ("refused" in recognized) {
    return { kind: "binary", contentType: type, description: recognized.refused };
  }
  if (response.truncated) {
    return {
      kind: "binary",
      contentType: type,
      description:
        `a ${recognized.format} document larger than the download cap, so it cannot be read`,
    };
  }
  const { extractInWorker } = await import("../../_lib/documents/pool.ts");
  try {
    const doc = await extractInWorker({
      format: recognized.format,
      bytes: response.body.slice(),
      name: response.url,
      offset: 1,
      limit: 100_000,
      maxChars: MAX_DOCUMENT_CHARS,
    }, signal);
    const cut = doc.last < doc.total && doc.format !== "xlsx"
      ? [`[Only ${doc.unit}s 1–${doc.last} of ${doc.total} were extracted.]`]
      : [];
    return {
      kind: "text",
      contentType: type,
      text: [doc.text, "", ...doc.notes, ...cut].join("\n").trim(),
      extracted: true,
    };
  } catch (error) {
    if (error instanceof DocumentError) throw new ToolError(error.message);
    throw error;
  }
}

/** bodyTextInWorker (convert/pool.ts), whose module loads on first use. */
async function bodyTextOffThread(job: BodyTextJob, signal?: AbortSignal): Promise<string> {
  const { bodyTextInWorker } = await import("./convert/pool.ts");
  return await bodyTextInWorker(job, signal);
}

/**
 * `signal` cancels a conversion or decoding under way (they run in a worker: convert/pool.ts). A
 * body converted or decoded there may be moved to the worker: `response.body` is empty afterwards.
 */
export async function toDocument(
  response: HttpResponse,
  options: { format: Format; raw: boolean; signal?: AbortSignal },
): Promise<WebDocument> {
  const { type, as } = classify(response);
  if (as === "image") {
    if (!DISPLAYABLE_IMAGES.has(type) || response.body.length > MAX_IMAGE_BYTES) {
      const why = response.truncated
        ? "it is larger than the download cap"
        : response.body.length > MAX_IMAGE_BYTES
        ? `it is ${bytes(response.body.length)}, over the ${
          bytes(MAX_IMAGE_BYTES)
        } limit for images`
        : "clients display only PNG, JPEG, GIF and WebP";
      return {
        kind: "binary",
        contentType: type,
        description: `an image (${type}) not shown: ${why}`,
      };
    }
    const size = response.body.length;
    const data = await bodyTextOffThread({ kind: "base64", body: response.body }, options.signal);
    return { kind: "image", contentType: type, data, size };
  }
  if (as === "binary" || as === "text") {
    const document = await extractedDocument(response, type, options.signal);
    if (document) return document;
  }
  if (as === "binary") {
    return {
      kind: "binary",
      contentType: type,
      description: `${bytes(response.body.length)}${
        response.truncated ? " or more" : ""
      } of ${type}`,
    };
  }
  if (as === "html" && !(options.raw && options.format === "html")) {
    const { convertInWorker } = await import("./convert/pool.ts");
    // The bytes go to the worker, which decodes them (the body is moved there, not copied).
    const page = await convertInWorker(
      { body: response.body, contentType: response.headers["content-type"] },
      { url: response.url, format: options.format, extract: !options.raw },
      options.signal,
    );
    return { kind: "text", contentType: type, ...page };
  }
  const job: BodyTextJob = {
    kind: isJson(type) ? "json" : "text",
    body: response.body,
    contentType: response.headers["content-type"],
  };
  // JSON is parsed and pretty-printed in the converter's worker when big (the body moves there).
  // Other text is only decoded, natively: receiving the text back from a worker costs the main
  // thread as much (2 MiB: 3.7 ms in place, 5.2 ms through the worker).
  const text = job.kind === "json" ? await bodyTextOffThread(job, options.signal) : bodyText(job);
  return { kind: "text", contentType: type, text, extracted: false };
}
