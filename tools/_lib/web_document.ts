/**
 * What a fetched response becomes for the model: HTML converted (markdown, text or cleaned HTML,
 * main content only unless raw), JSON pretty-printed, other text as it is, a displayable image
 * as image content, and any other binary described rather than dumped.
 */
import { Buffer } from "node:buffer";
import { decodeBody, type HttpResponse } from "./http_get.ts";
import { binaryKind, imageType, SNIFF_BYTES } from "./text.ts";
import { bytes } from "./units.ts";

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

function looksLikeHtml(text: string): boolean {
  return /^\s*(<!--[\s\S]*?-->\s*)*<(!doctype\s+html|html|head|body)[\s>]/i.test(
    text.slice(0, 2048),
  );
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
  if (declared.startsWith("image/") && declared !== "image/svg+xml") {
    return { type: sniffedImage ?? declared, as: "image" };
  }
  if (isHtml(declared)) return { type: declared, as: "html" };
  if (isText(declared)) return { type: declared, as: "text" };
  if (declared && declared !== "application/octet-stream" && declared !== "binary/octet-stream") {
    return { type: declared, as: "binary" };
  }
  if (sniffedImage) return { type: sniffedImage, as: "image" };
  if (binaryKind(head)) return { type: declared || "application/octet-stream", as: "binary" };
  const start = new TextDecoder().decode(head.subarray(0, 2048));
  return { type: declared || "text/plain", as: looksLikeHtml(start) ? "html" : "text" };
}

export async function toDocument(
  response: HttpResponse,
  options: { format: Format; raw: boolean },
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
    const data = Buffer.from(response.body).toString("base64");
    return { kind: "image", contentType: type, data, size: response.body.length };
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
  const text = decodeBody(response);
  if (as === "html" && !(options.raw && options.format === "html")) {
    const { convertHtml } = await import("./main_content.ts");
    const page = convertHtml(text, {
      url: response.url,
      format: options.format,
      extract: !options.raw,
    });
    return { kind: "text", contentType: type, ...page };
  }
  if (isJson(type)) {
    try {
      return {
        kind: "text",
        contentType: type,
        text: JSON.stringify(JSON.parse(text), null, 2),
        extracted: false,
      };
    } catch {
      // Not valid JSON after all (or cut by the download cap): pass it through as it came.
    }
  }
  return { kind: "text", contentType: type, text, extracted: false };
}
