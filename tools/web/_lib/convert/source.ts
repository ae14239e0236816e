/**
 * What the converter's worker does with one page (worker.ts): the page comes as text, or
 * as the bytes the server sent, decoded here (charset from the header, a BOM or the markup) so
 * that neither the decoding nor a copy of the text costs the main thread anything; a page longer
 * than MAX_CONVERTED_HTML_CHARS is converted up to there, with a note saying so, and a page
 * too dense to build into a tree (node_budget.ts) comes back as its text, with a note too.
 */
import { decodeText } from "../http/charset.ts";
import { type ConvertedPage, convertHtml, type ConvertPageOptions } from "./main_content.ts";
import { bytes, count } from "../../../_lib/text/units.ts";
import { denseText } from "./dense_text.ts";
import { TooManyNodes } from "./node_budget.ts";

/** The page's HTML, or its body as downloaded with its Content-Type (for the charset). */
export type HtmlSource = string | { body: Uint8Array; contentType?: string };

/**
 * HTML beyond this is not converted: a 2 MB page takes up to a second of a worker's time, and a
 * 10 MB one took nine seconds and 2 GB.
 */
export const MAX_CONVERTED_HTML_CHARS = 2 * 1024 * 1024;

export function convertSource(source: HtmlSource, options: ConvertPageOptions): ConvertedPage {
  const html = typeof source === "string" ? source : decodeText(source.body, source.contentType);
  const cut = html.length > MAX_CONVERTED_HTML_CHARS;
  const page = convertWithinBudget(cut ? html.slice(0, cutAt(html)) : html, options);
  if (cut) {
    page.text += `\n\n[Only the first ${bytes(MAX_CONVERTED_HTML_CHARS)} of this page's ` +
      `${bytes(html.length)} of HTML were converted. For the rest, use format "html" with ` +
      "raw: true and read on with start_index.]";
  }
  return page;
}

/** Where a long page is cut: never between the two halves of a character outside the BMP. */
function cutAt(html: string): number {
  const last = html.charCodeAt(MAX_CONVERTED_HTML_CHARS - 1);
  return last >= 0xd800 && last <= 0xdbff ? MAX_CONVERTED_HTML_CHARS - 1 : MAX_CONVERTED_HTML_CHARS;
}

/** The page converted, or when its tree would be over budget, its text with a note saying so. */
function convertWithinBudget(html: string, options: ConvertPageOptions): ConvertedPage {
  try {
    return convertHtml(html, options);
  } catch (error) {
    if (!(error instanceof TooManyNodes)) throw error;
    const { title, text } = denseText(html);
    const note = `[This page has more than ${count(error.limit)} HTML nodes (tags, attributes, ` +
      `texts, comments), too many to convert${
        options.format === "text" ? "" : ` to ${options.format}`
      } ` +
      "in bounded memory: this is its plain text only, without links, headings, lists or " +
      `tables${options.extract ? ", and of the whole page, not only its main content" : ""}.]`;
    return {
      ...(title ? { title } : {}),
      text: text ? `${text}\n\n${note}` : note,
      extracted: false,
    };
  }
}
