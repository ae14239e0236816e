/**
 * A Word document as markdown: mammoth turns the .docx (opened within bounds first: zip.ts) into
 * simple semantic HTML — headings, paragraphs, lists, tables, links — and that HTML becomes
 * markdown here. Runs in the worker. Images are not read (mammoth is told to leave them out).
 */
import { Buffer } from "node:buffer";
import { DocumentError, type Extracted, type ExtractRequest } from "./types.ts";
import { Window } from "./window.ts";
import { boundedZip } from "./zip.ts";

export async function extractDocx(request: ExtractRequest): Promise<Extracted> {
  const zip = boundedZip(
    Buffer.from(request.bytes.buffer, request.bytes.byteOffset, request.bytes.byteLength),
    request.name,
    {
      skip: (name) => name.startsWith("word/media/") || name.startsWith("word/embeddings/"),
    },
  );
  const mammoth = (await import("mammoth")).default;
  let html: string;
  let images = 0;
  try {
    const result = await mammoth.convertToHtml({ buffer: zip }, {
      convertImage: mammoth.images.imgElement(() => {
        images++;
        return Promise.resolve({ src: "" });
      }),
      ignoreEmptyParagraphs: true,
    });
    html = result.value;
  } catch (error) {
    throw new DocumentError(
      `${request.name} is not a readable Word document (${(error as Error).message.slice(0, 200)})`,
    );
  }
  const markdown = await htmlToMarkdown(html);
  const lines = markdown.split("\n");
  const window = new Window(request);
  const { from, to } = window.range(lines.length);
  for (let n = from; n <= to; n++) if (!window.add(n, lines[n - 1])) break;
  return {
    format: "docx",
    unit: "line",
    text: window.text(),
    first: window.first,
    last: window.last,
    total: lines.length,
    stoppedForSize: window.stoppedForSize,
    notes: images ? [`[${images} image${images === 1 ? "" : "s"} not shown]`] : [],
    images: [],
  };
}

type Node = {
  nodeType: number;
  nodeName: string;
  textContent: string | null;
  childNodes: ArrayLike<Node>;
  getAttribute?(name: string): string | null;
};

const inlineText = (text: string) => text.replace(/\s+/g, " ").replace(/([\\`*_[\]|<>])/g, "\\$1");

function inline(node: Node): string {
  if (node.nodeType === 3) return inlineText(node.textContent ?? "");
  if (node.nodeType !== 1) return "";
  const inner = () => Array.from(node.childNodes, inline).join("");
  switch (node.nodeName.toLowerCase()) {
    case "strong":
    case "b": {
      const text = inner();
      return text.trim() ? `**${text}**` : text;
    }
    case "em":
    case "i": {
      const text = inner();
      return text.trim() ? `*${text}*` : text;
    }
    case "s":
    case "del": {
      const text = inner();
      return text.trim() ? `~~${text}~~` : text;
    }
    case "a": {
      const href = node.getAttribute?.("href") ?? "";
      const text = inner();
      return href && !href.startsWith("#")
        ? `[${text || href}](${href.replace(/[()\s]/g, encodeURIComponent)})`
        : text;
    }
    case "br":
      return "  \n";
    case "img": {
      const alt = node.getAttribute?.("alt");
      return alt ? `[image: ${inlineText(alt)}]` : "[image]";
    }
    default:
      return inner();
  }
}

function cell(node: Node): string {
  return Array.from(
    node.childNodes,
    (child) =>
      ["p", "ul", "ol", "table"].includes(child.nodeName.toLowerCase())
        ? block(child, "").join(" ")
        : inline(child),
  ).join(" ").replace(/\s*\n\s*/g, " ").trim();
}

function table(node: Node): string[] {
  const rows: string[][] = [];
  const visit = (n: Node) => {
    for (const child of Array.from(n.childNodes)) {
      const name = child.nodeName.toLowerCase();
      if (name === "tr") {
        rows.push(
          Array.from(child.childNodes).filter((c) => /^t[dh]$/i.test(c.nodeName)).map(cell),
        );
      } else if (["thead", "tbody", "tfoot"].includes(name)) visit(child);
    }
  };
  visit(node);
  if (!rows.length) return [];
  const width = Math.max(...rows.map((r) => r.length));
  const line = (r: string[]) =>
    `| ${Array.from({ length: width }, (_, i) => r[i] ?? "").join(" | ")} |`;
  return [line(rows[0]), `|${" --- |".repeat(width)}`, ...rows.slice(1).map(line), ""];
}

function list(node: Node, indent: string): string[] {
  const ordered = node.nodeName.toLowerCase() === "ol";
  const lines: string[] = [];
  let n = 1;
  for (const item of Array.from(node.childNodes)) {
    if (item.nodeName.toLowerCase() !== "li") continue;
    const marker = ordered ? `${n++}. ` : "- ";
    const text: string[] = [];
    const nested: string[] = [];
    for (const child of Array.from(item.childNodes)) {
      const name = child.nodeName.toLowerCase();
      if (name === "ul" || name === "ol") {
        nested.push(...list(child, indent + " ".repeat(marker.length)));
      } else if (name === "p") text.push(Array.from(child.childNodes, inline).join(""));
      else text.push(inline(child));
    }
    lines.push(`${indent}${marker}${text.join(" ").trim()}`, ...nested);
  }
  return lines;
}

function block(node: Node, indent: string): string[] {
  const name = node.nodeName.toLowerCase();
  const heading = name.match(/^h([1-6])$/);
  if (heading) {
    return [
      `${"#".repeat(Number(heading[1]))} ${Array.from(node.childNodes, inline).join("").trim()}`,
      "",
    ];
  }
  if (name === "p") {
    const text = Array.from(node.childNodes, inline).join("").trim();
    return text ? [text, ""] : [];
  }
  if (name === "ul" || name === "ol") return [...list(node, indent), ""];
  if (name === "table") return table(node);
  if (name === "blockquote") {
    return Array.from(node.childNodes).flatMap((c) => block(c, indent)).map((l) => `> ${l}`);
  }
  if (node.nodeType === 3) {
    const text = inlineText(node.textContent ?? "").trim();
    return text ? [text, ""] : [];
  }
  if (node.nodeType !== 1) return [];
  return Array.from(node.childNodes).flatMap((child) => block(child, indent));
}

export async function htmlToMarkdown(html: string): Promise<string> {
  const { parseHTML } = await import("linkedom");
  const { document } = parseHTML(`<!doctype html><html><body>${html}</body></html>`) as unknown as {
    document: { body: Node };
  };
  const lines = block(document.body, "");
  while (lines.length && lines[lines.length - 1] === "") lines.pop();
  return lines.join("\n").replace(/\n{3,}/g, "\n\n");
}
