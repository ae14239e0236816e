/**
 * Documents made by the tests themselves, so no binary fixture is checked in: PDFs (compressed
 * page streams, any number of pages, optionally encrypted or truncated), .docx and .xlsx
 * packages (zipped XML, as Word and Excel write them), notebooks, and hostile variants.
 */
import { Buffer } from "node:buffer";
import { deflateRawSync, deflateSync } from "node:zlib";
import { crc32, zipArchive } from "../../tools/_lib/documents/zip_write.ts";

/** A 1×1 red PNG. */
export const PNG_BASE64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg==";

function pdfString(text: string): string {
  return `(${text.replace(/[\\()]/g, (c) => `\\${c}`)})`;
}

/**
 * A PDF whose pages hold `pages[i]` (lines of text; an empty list makes a page without text, like
 * a scan). Page streams are Flate-compressed. `encrypt` adds a standard security handler with a
 * user password, so the file cannot be opened without it. `sharedPages` makes every page share one
 * content stream, for huge page counts in a small file. `packed` is a page content stream already
 * deflated.
 */
export function pdf(
  pages: string[][],
  options: { encrypt?: boolean; count?: number; packed?: Buffer } = {},
): Buffer {
  const objects: string[] = [];
  const streams: (Buffer | undefined)[] = [];
  const add = (body: string, stream?: Buffer) => {
    objects.push(body);
    streams.push(stream);
    return objects.length;
  };
  const catalog = add("");
  const tree = add("");
  const font = add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>");
  const kids: number[] = [];
  const contentFor = new Map<string, number>();
  const count = options.count ?? pages.length;
  for (let i = 0; i < count; i++) {
    const lines = pages[Math.min(i, pages.length - 1)];
    const key = lines.join("\n");
    let content = contentFor.get(key);
    if (content === undefined) {
      const ops = lines.map((line, n) =>
        `BT /F1 12 Tf 72 ${720 - 16 * n} Td ${pdfString(line)} Tj ET`
      )
        .join("\n");
      const packed = options.packed ?? deflateSync(Buffer.from(ops, "latin1"));
      content = add(`<< /Length ${packed.length} /Filter /FlateDecode >>`, packed);
      contentFor.set(key, content);
    }
    kids.push(
      add(
        `<< /Type /Page /Parent ${tree} 0 R /MediaBox [0 0 612 792] /Contents ${content} 0 R ` +
          `/Resources << /Font << /F1 ${font} 0 R >> >> >>`,
      ),
    );
  }
  objects[catalog - 1] = `<< /Type /Catalog /Pages ${tree} 0 R >>`;
  objects[tree - 1] = `<< /Type /Pages /Kids [${
    kids.map((k) => `${k} 0 R`).join(" ")
  }] /Count ${kids.length} >>`;
  let encrypt: number | undefined;
  if (options.encrypt) {
    const o = "<" + "11".repeat(32) + ">";
    const u = "<" + "22".repeat(32) + ">";
    encrypt = add(`<< /Filter /Standard /V 1 /R 2 /O ${o} /U ${u} /P -44 >>`);
  }
  const parts: Buffer[] = [Buffer.from("%PDF-1.5\n%\xe2\xe3\xcf\xd3\n", "latin1")];
  let at = parts[0].length;
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(at);
    const stream = streams[i];
    const chunk = stream
      ? Buffer.concat([
        Buffer.from(`${i + 1} 0 obj\n${body}\nstream\n`, "latin1"),
        stream,
        Buffer.from("\nendstream\nendobj\n", "latin1"),
      ])
      : Buffer.from(`${i + 1} 0 obj\n${body}\nendobj\n`, "latin1");
    parts.push(chunk);
    at += chunk.length;
  });
  const xref = [
    `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`,
    ...offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n \n`),
    `trailer\n<< /Size ${objects.length + 1} /Root ${catalog} 0 R${
      encrypt
        ? ` /Encrypt ${encrypt} 0 R /ID [<0123456789abcdef0123456789abcdef> <0123456789abcdef0123456789abcdef>]`
        : ""
    } >>\nstartxref\n${at}\n%%EOF\n`,
  ].join("");
  parts.push(Buffer.from(xref, "latin1"));
  return Buffer.concat(parts);
}

export interface ZipEntry {
  name: string;
  data: string | Uint8Array;
  /** Store instead of deflating. */
  stored?: boolean;
  /** Claim this uncompressed size in the headers (a lying zip bomb). */
  claimedSize?: number;
}

/** A zip archive (deflated unless `stored`), as office programs write them. */
export function zipOf(entries: ZipEntry[]): Buffer {
  return zipArchive(entries.map((entry) => {
    const data = typeof entry.data === "string" ? Buffer.from(entry.data, "utf8") : entry.data;
    return {
      name: Buffer.from(entry.name, "utf8"),
      packed: entry.stored ? Buffer.from(data) : deflateRawSync(data),
      crc: crc32(data),
      size: entry.claimedSize ?? data.length,
      method: entry.stored ? 0 : 8,
      version: 20,
    };
  }));
}

const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" ' +
  'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';

function run(text: string, props = ""): string {
  return `<w:r>${
    props ? `<w:rPr>${props}</w:rPr>` : ""
  }<w:t xml:space="preserve">${text}</w:t></w:r>`;
}

function para(content: string, style?: string, list?: { id: number; level: number }): string {
  const props = [
    style ? `<w:pStyle w:val="${style}"/>` : "",
    list ? `<w:numPr><w:ilvl w:val="${list.level}"/><w:numId w:val="${list.id}"/></w:numPr>` : "",
  ].join("");
  return `<w:p>${props ? `<w:pPr>${props}</w:pPr>` : ""}${content}</w:p>`;
}

/** An office file's _rels/.rels: the package's one relationship, to its main part `target`. */
function packageRels(target: string): ZipEntry {
  return {
    name: "_rels/.rels",
    data: `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="${target}"/>
</Relationships>`,
  };
}

/** A .docx with a heading, bold text, a bulleted and a numbered list, a table and a link. */
export function docx(body?: string): Buffer {
  const cell = (text: string) => `<w:tc>${para(run(text))}</w:tc>`;
  const document = body ?? [
    para(run("Quarterly report"), "Heading1"),
    para(run("Revenue grew, ") + run("strongly", "<w:b/>") + run(" this quarter.")),
    para(run("Costs"), "Heading2"),
    para(run("first bullet"), undefined, { id: 1, level: 0 }),
    para(run("second bullet"), undefined, { id: 1, level: 0 }),
    para(run("step one"), undefined, { id: 2, level: 0 }),
    para(run("step two"), undefined, { id: 2, level: 0 }),
    `<w:tbl><w:tr>${cell("Region")}${cell("Sales")}</w:tr><w:tr>${cell("North")}${
      cell("120")
    }</w:tr></w:tbl>`,
    para(`<w:hyperlink r:id="rIdLink">${run("the website")}</w:hyperlink>`),
  ].join("");
  const numbering = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:numbering ${W}>
<w:abstractNum w:abstractNumId="0"><w:lvl w:ilvl="0"><w:numFmt w:val="bullet"/></w:lvl></w:abstractNum>
<w:abstractNum w:abstractNumId="1"><w:lvl w:ilvl="0"><w:numFmt w:val="decimal"/></w:lvl></w:abstractNum>
<w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num>
<w:num w:numId="2"><w:abstractNumId w:val="1"/></w:num>
</w:numbering>`;
  const styles = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:styles ${W}>
<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/></w:style>
<w:style w:type="paragraph" w:styleId="Heading2"><w:name w:val="heading 2"/></w:style>
</w:styles>`;
  return zipOf([
    {
      name: "[Content_Types].xml",
      data: `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>
<Default Extension="xml" ContentType="application/xml"/>
<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>
</Types>`,
    },
    packageRels("word/document.xml"),
    {
      name: "word/_rels/document.xml.rels",
      data: `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rIdLink" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink" Target="https://example.com/report" TargetMode="External"/>
<Relationship Id="rIdNum" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/numbering" Target="numbering.xml"/>
<Relationship Id="rIdSty" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>
</Relationships>`,
    },
    {
      name: "word/document.xml",
      data: `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document ${W}><w:body>${document}</w:body></w:document>`,
    },
    { name: "word/numbering.xml", data: numbering },
    { name: "word/styles.xml", data: styles },
  ]);
}

function column(n: number): string {
  let name = "";
  for (n++; n > 0; n = Math.floor((n - 1) / 26)) {
    name = String.fromCharCode(65 + (n - 1) % 26) + name;
  }
  return name;
}

const xmlText = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** An .xlsx with the given sheets (rows of strings and numbers; inline strings). */
export function xlsx(sheets: { name: string; rows: (string | number)[][] }[]): Buffer {
  const sheetXml = (rows: (string | number)[][]) =>
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>${
      rows.map((row, r) =>
        `<row r="${r + 1}">${
          row.map((value, c) => {
            const ref = `${column(c)}${r + 1}`;
            return typeof value === "number"
              ? `<c r="${ref}"><v>${value}</v></c>`
              : `<c r="${ref}" t="inlineStr"><is><t>${xmlText(value)}</t></is></c>`;
          }).join("")
        }</row>`
      ).join("")
    }</sheetData></worksheet>`;
  return zipOf([
    {
      name: "[Content_Types].xml",
      data: `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>
<Default Extension="xml" ContentType="application/xml"/>
<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>
${
        sheets.map((_, i) =>
          `<Override PartName="/xl/worksheets/sheet${
            i + 1
          }.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`
        ).join("\n")
      }
</Types>`,
    },
    packageRels("xl/workbook.xml"),
    {
      name: "xl/workbook.xml",
      data: `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>${
        sheets.map((s, i) =>
          `<sheet name="${xmlText(s.name)}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`
        )
          .join("")
      }</sheets></workbook>`,
    },
    {
      name: "xl/_rels/workbook.xml.rels",
      data: `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${
        sheets.map((_, i) =>
          `<Relationship Id="rId${
            i + 1
          }" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet${
            i + 1
          }.xml"/>`
        ).join("")
      }</Relationships>`,
    },
    ...sheets.map((s, i) => ({ name: `xl/worksheets/sheet${i + 1}.xml`, data: sheetXml(s.rows) })),
  ]);
}

/**
 * A zip bomb dressed as a .docx: word/document.xml inflates to `size` bytes (about a thousandth
 * of that packed). `claimedSize` makes the headers lie about it.
 */
export function zipBomb(size = 200 * 1024 * 1024, claimedSize?: number): Buffer {
  return zipOf([
    { name: "[Content_Types].xml", data: "<Types/>" },
    { name: "word/document.xml", data: Buffer.alloc(size, 0x20), claimedSize },
  ]);
}

/** A notebook: a markdown cell, a code cell with text and PNG outputs, and a raw cell. */
export function notebook(): string {
  return JSON.stringify(
    {
      nbformat: 4,
      nbformat_minor: 5,
      metadata: { kernelspec: { name: "python3", display_name: "Python 3", language: "python" } },
      cells: [
        {
          id: "intro",
          cell_type: "markdown",
          metadata: {},
          source: ["# Analysis\n", "Some *notes*."],
        },
        {
          id: "load",
          cell_type: "code",
          execution_count: 1,
          metadata: {},
          source: ["import pandas as pd\n", "print('hello')"],
          outputs: [
            { output_type: "stream", name: "stdout", text: ["hello\n"] },
            {
              output_type: "display_data",
              metadata: {},
              data: { "image/png": PNG_BASE64, "text/plain": ["<Figure>"] },
            },
            {
              output_type: "execute_result",
              execution_count: 1,
              metadata: {},
              data: { "text/plain": ["42"] },
            },
          ],
        },
        {
          id: "fail",
          cell_type: "code",
          execution_count: 2,
          metadata: {},
          source: "1/0",
          outputs: [{
            output_type: "error",
            ename: "ZeroDivisionError",
            evalue: "division by zero",
            traceback: ["\u001b[0;31mZeroDivisionError\u001b[0m: division by zero"],
          }],
        },
      ],
    },
    null,
    1,
  );
}

/** Hostile documents, made on the spot as the memory benchmark makes them. */
export { pdfBomb, sharedStringsXlsx } from "../../scripts/bench/hostile_documents.ts";
