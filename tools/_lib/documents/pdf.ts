/** PDF text, page by page, with pdf.js through unpdf's serverless build. Runs in the worker. */
import { DocumentError, type Extracted, type ExtractRequest } from "./types.ts";
import { numberList, Window } from "./window.ts";
import { checkStreams } from "./pdf_streams.ts";

export async function extractPdf(request: ExtractRequest): Promise<Extracted> {
  // A stream that would inflate past what a document may take is refused before pdf.js inflates
  // it, which it would do at once, faster than memory can be watched.
  checkStreams(request.bytes, request.name);
  const { getDocumentProxy } = await import("unpdf");
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    pdf = await getDocumentProxy(
      request.bytes,
      {
        // No fonts, scripts or network: text only.
        disableFontFace: true,
        isEvalSupported: false,
        stopAtErrors: false,
        verbosity: 0,
      } as Parameters<typeof getDocumentProxy>[1],
    );
  } catch (error) {
    const name = (error as Error).name;
    if (name === "PasswordException") {
      throw new DocumentError(
        `${request.name} is an encrypted PDF that needs a password to open; read_file cannot ` +
          "read it (qpdf --decrypt --password=… makes a readable copy, given the password)",
      );
    }
    if (name === "InvalidPDFException" || name === "FormatError") {
      throw new DocumentError(
        `${request.name} is not a readable PDF (${
          (error as Error).message
        }); the file may be damaged or truncated`,
      );
    }
    throw error;
  }
  try {
    const total = pdf.numPages;
    const window = new Window(request);
    const { from, to } = window.range(total);
    const empty: number[] = [];
    const failed: number[] = [];
    for (let n = from; n <= to; n++) {
      let text = "";
      try {
        const page = await pdf.getPage(n);
        const content = await page.getTextContent();
        for (const item of content.items) {
          if (!("str" in item)) continue;
          text += item.str + (item.hasEOL ? "\n" : "");
        }
        page.cleanup();
      } catch {
        failed.push(n);
      }
      text = text.replace(/[ \t]+\n/g, "\n").trim();
      if (!text && !failed.includes(n)) empty.push(n);
      const body = text ||
        (failed.includes(n) ? "[this page could not be read]" : "[no text on this page]");
      if (!window.add(n, `--- page ${n} of ${total} ---\n${body}`)) break;
    }
    const notes: string[] = [];
    const shownEmpty = empty.filter((n) => n <= window.last);
    if (shownEmpty.length) {
      notes.push(
        `[page${shownEmpty.length === 1 ? "" : "s"} ${numberList(shownEmpty)} ${
          shownEmpty.length === 1 ? "has" : "have"
        } no text: probably scanned images; OCR (e.g. ocrmypdf) would be needed]`,
      );
    }
    if (failed.length) {
      notes.push(`[page${failed.length === 1 ? "" : "s"} ${numberList(failed)} could not be read]`);
    }
    return {
      format: "pdf",
      unit: "page",
      text: window.text(),
      first: window.first,
      last: window.last,
      total,
      stoppedForSize: window.stoppedForSize,
      notes,
      images: [],
    };
  } finally {
    const proxy = pdf as unknown as {
      destroy?(): Promise<void>;
      loadingTask?: { destroy?(): Promise<void> };
    };
    await (proxy.destroy?.() ?? proxy.loadingTask?.destroy?.());
  }
}
