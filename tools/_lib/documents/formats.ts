/**
 * Which documents are extracted rather than shown as bytes, told from a name (a path or a
 * URL's path) and the first bytes, or from a Content-Type. Light on purpose: read_file and
 * fetch_url import it on every call; the extractors load only in the worker.
 */
import type { DocumentFormat } from "./types.ts";

const ZIP = [0x50, 0x4b, 0x03, 0x04];
/** OLE compound files: legacy .doc/.xls, and password-protected .docx/.xlsx. */
const OLE = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];

const startsWith = (head: Uint8Array, magic: number[]) => magic.every((b, i) => head[i] === b);

export type Recognized =
  | { format: DocumentFormat }
  /** A document that is recognized but not read, with why and what to do. */
  | { refused: string };

function extensionOf(name: string): string {
  const path = name.replace(/[?#].*$/, "");
  const dot = path.lastIndexOf(".");
  return dot > path.lastIndexOf("/") ? path.slice(dot + 1).toLowerCase() : "";
}

const CONTENT_TYPES: Record<string, DocumentFormat> = {
  "application/pdf": "pdf",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx",
  "application/x-ipynb+json": "ipynb",
};

/** The document format of a file named `name` starting with `head`, if it is one read here. */
export function recognize(
  name: string,
  head: Uint8Array,
  contentType = "",
): Recognized | undefined {
  const ext = extensionOf(name);
  const declared = CONTENT_TYPES[contentType.split(";")[0].trim().toLowerCase()];
  const pdfAt = new TextDecoder("latin1").decode(head.subarray(0, 1024)).indexOf("%PDF-");
  if (pdfAt >= 0 && (pdfAt === 0 || ext === "pdf" || declared === "pdf")) return { format: "pdf" };
  if (startsWith(head, ZIP)) {
    if (["docx", "docm", "dotx"].includes(ext) || declared === "docx") return { format: "docx" };
    if (["xlsx", "xlsm", "xltx"].includes(ext) || declared === "xlsx") return { format: "xlsx" };
    return undefined;
  }
  if (startsWith(head, OLE)) {
    if (["xls", "xlsx", "xlsm", "doc", "docx", "docm"].includes(ext)) {
      const legacy = ext === "xls" || ext === "doc";
      return {
        refused: legacy
          ? `an Office 97–2003 ${
            ext === "xls" ? "workbook" : "document"
          } (.${ext}), which is not ` +
            `read here; convert it (libreoffice --headless --convert-to ${ext}x) and read the copy`
          : "a password-protected Office file; it cannot be read without its password",
      };
    }
    return undefined;
  }
  if (ext === "ipynb" || declared === "ipynb") return { format: "ipynb" };
  return undefined;
}
