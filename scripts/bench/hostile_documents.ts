/**
 * Hostile documents made on the spot (nothing downloaded), for the memory benchmark and the
 * tests: a PDF whose one content stream inflates to gigabytes, and an .xlsx whose shared-string
 * table holds millions of tiny strings. Each is small on disk and built as a stream, so whoever
 * makes one never holds what it inflates to.
 *
 * @example
 * ```ts
 * writeFileSync("bomb.pdf", await pdfBomb("boom", 1280 * 1024 * 1024)); // about 1.3 MB
 * writeFileSync("strings.xlsx", await sharedStringsXlsx(96 * 1024 * 1024)); // about 0.5 MB
 * ```
 */
import { Buffer } from "node:buffer";
import { crc32 as crcOf, createDeflate, createDeflateRaw, deflateRawSync } from "node:zlib";
import { crc32, zipArchive } from "../../tools/_lib/documents/zip_write.ts";

/** Deflates what `write` produces, zlib-wrapped or raw, without holding it whole. */
async function deflated(
  raw: boolean,
  produce: (write: (chunk: Buffer) => Promise<void>) => Promise<void>,
): Promise<Buffer> {
  const deflate = raw ? createDeflateRaw({ level: 9 }) : createDeflate({ level: 9 });
  const parts: Buffer[] = [];
  deflate.on("data", (part: Buffer) => parts.push(part));
  const done = new Promise((resolve, reject) => deflate.on("end", resolve).on("error", reject));
  await produce((chunk) =>
    new Promise<void>((
      resolve,
    ) => (deflate.write(chunk) ? resolve() : deflate.once("drain", resolve)))
  );
  deflate.end();
  await done;
  return Buffer.concat(parts);
}

/** Writes `size` bytes of `unit` repeated (cut to fit), a megabyte at a time. */
async function repeated(write: (chunk: Buffer) => Promise<void>, unit: string, size: number) {
  const block = Buffer.from(unit.repeat(Math.ceil((1 << 20) / unit.length)), "latin1");
  for (let left = size; left > 0; left -= block.length) {
    await write(left >= block.length ? block : block.subarray(0, left));
  }
}

/** A one-page PDF whose page's content stream (the page's `text`, then spaces) is `packed`. */
function onePagePdf(packed: Buffer): Buffer {
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 5 0 R " +
    "/Resources << /Font << /F1 3 0 R >> >> >>",
    `<< /Length ${packed.length} /Filter /FlateDecode >>`,
  ];
  const parts: Buffer[] = [Buffer.from("%PDF-1.5\n%\xe2\xe3\xcf\xd3\n", "latin1")];
  let at = parts[0].length;
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(at);
    const chunk = i === 4
      ? Buffer.concat([
        Buffer.from(`${i + 1} 0 obj\n${body}\nstream\n`, "latin1"),
        packed,
        Buffer.from("\nendstream\nendobj\n", "latin1"),
      ])
      : Buffer.from(`${i + 1} 0 obj\n${body}\nendobj\n`, "latin1");
    parts.push(chunk);
    at += chunk.length;
  });
  parts.push(Buffer.from(
    `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n` +
      offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n \n`).join("") +
      `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${at}\n%%EOF\n`,
    "latin1",
  ));
  return Buffer.concat(parts);
}

/**
 * A one-page PDF of about size/1000 bytes whose content stream inflates to `size` bytes: the
 * page's text, then spaces.
 */
export async function pdfBomb(text: string, size: number): Promise<Buffer> {
  const escaped = text.replace(/[\\()]/g, (c) => `\\${c}`);
  return onePagePdf(
    await deflated(false, async (write) => {
      await write(Buffer.from(`BT /F1 12 Tf 72 720 Td (${escaped}) Tj ET\n`, "latin1"));
      await repeated(write, " ", size);
    }),
  );
}

const RELS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
const MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";

/**
 * An .xlsx of one sheet whose few cells name shared strings, and whose shared-string table is
 * `size` bytes of one-letter strings (about size/17 of them): an office file within any
 * limit on what its parts inflate to, which a reader that builds every string at once pays for
 * many times over.
 */
export async function sharedStringsXlsx(size: number): Promise<Buffer> {
  const unit = "<si><t>a</t></si>";
  const count = Math.floor(size / unit.length);
  const head = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n` +
    `<sst xmlns="${MAIN}" count="${count}" uniqueCount="${count}">`;
  const table = await deflated(true, async (write) => {
    await write(Buffer.from(head, "latin1"));
    await repeated(write, unit, count * unit.length);
    await write(Buffer.from("</sst>", "latin1"));
  });
  // The CRC of what the table inflates to, computed the same way, a megabyte at a time.
  let crc = crcOf(Buffer.from(head, "latin1"));
  await repeated(
    (chunk) => Promise.resolve(void (crc = crcOf(chunk, crc))),
    unit,
    count * unit.length,
  );
  crc = crcOf(Buffer.from("</sst>", "latin1"), crc);
  const tableSize = head.length + count * unit.length + "</sst>".length;
  const part = (name: string, text: string) => ({ name, data: Buffer.from(text, "utf8") });
  const small = [
    part(
      "[Content_Types].xml",
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>
<Default Extension="xml" ContentType="application/xml"/>
<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>
<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>
<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>
</Types>`,
    ),
    part(
      "_rels/.rels",
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${RELS}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    ),
    part(
      "xl/workbook.xml",
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<workbook xmlns="${MAIN}" xmlns:r="${RELS}"><sheets><sheet name="Strings" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    ),
    part(
      "xl/_rels/workbook.xml.rels",
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${RELS}/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="${RELS}/sharedStrings" Target="sharedStrings.xml"/></Relationships>`,
    ),
    part(
      "xl/worksheets/sheet1.xml",
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<worksheet xmlns="${MAIN}"><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>${
        count - 1
      }</v></c></row></sheetData></worksheet>`,
    ),
  ];
  return zipArchive([
    ...small.map(({ name, data }) => ({
      name: Buffer.from(name, "utf8"),
      packed: deflateRawSync(data),
      crc: crc32(data),
      size: data.length,
      method: 8,
      version: 20,
    })),
    {
      name: Buffer.from("xl/sharedStrings.xml", "utf8"),
      packed: table,
      crc,
      size: tableSize,
      method: 8,
      version: 20,
    },
  ]);
}
