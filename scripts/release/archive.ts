/**
 * The release archives, written here rather than by the tar and zip programs so that they come
 * out byte for byte the same on any machine for the same commit (fixed owner, modes and times;
 * files in the order given). Also reads the npm tarballs the bun runtimes arrive in.
 */
import { Buffer } from "node:buffer";
import { promisify } from "node:util";
import { deflateRaw, gunzipSync, gzip } from "node:zlib";
import { crc32, zipArchive, type ZipRecord } from "../../tools/_lib/documents/zip_write.ts";

export interface Entry {
  /** Path inside the archive, "/"-separated; a directory's ends with "/". */
  path: string;
  /** File contents; absent for a directory. */
  data?: Uint8Array;
  /** Unix permissions, e.g. 0o755 for the executable. */
  mode: number;
}

const gzipAsync = promisify(gzip);
const deflateRawAsync = promisify(deflateRaw);
/** Level 9 costs about 2 s more per archive than the default and saves about 4 %. */
const LEVEL = 9;
const BLOCK = 512;

function octal(value: number, width: number): string {
  return value.toString(8).padStart(width - 1, "0") + "\0";
}

function tarHeader(entry: Entry, mtime: number): Buffer {
  const header = Buffer.alloc(BLOCK);
  const name = Buffer.from(entry.path, "utf8");
  if (name.length > 100) throw new Error(`tar: path too long for a plain header: ${entry.path}`);
  name.copy(header, 0);
  header.write(octal(entry.mode, 8), 100, "ascii");
  header.write(octal(0, 8), 108, "ascii"); // uid
  header.write(octal(0, 8), 116, "ascii"); // gid
  header.write(octal(entry.data?.length ?? 0, 12), 124, "ascii");
  header.write(octal(mtime, 12), 136, "ascii");
  header.write(entry.data ? "0" : "5", 156, "ascii");
  header.write("ustar\u000000", 257, "ascii");
  header.write("root", 265, "ascii");
  header.write("root", 297, "ascii");
  // The checksum is computed with its own field read as spaces.
  header.fill(" ", 148, 156);
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(octal(sum, 7) + " ", 148, "ascii");
  return header;
}

/** A gzipped ustar archive of `entries`, every entry dated `mtime` (Unix seconds). */
export async function tarGz(entries: Entry[], mtime: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    parts.push(tarHeader(entry, mtime));
    if (entry.data) {
      parts.push(Buffer.from(entry.data.buffer, entry.data.byteOffset, entry.data.length));
      const pad = (BLOCK - (entry.data.length % BLOCK)) % BLOCK;
      if (pad) parts.push(Buffer.alloc(pad));
    }
  }
  parts.push(Buffer.alloc(2 * BLOCK));
  return await gzipAsync(Buffer.concat(parts), { level: LEVEL });
}

/** The files in a gzipped tar (npm's tarballs): path to contents. Directories are skipped. */
export function untarGz(tgz: Uint8Array): Map<string, Buffer> {
  const tar = gunzipSync(tgz);
  const files = new Map<string, Buffer>();
  let offset = 0;
  while (offset + BLOCK <= tar.length) {
    const header = tar.subarray(offset, offset + BLOCK);
    if (header.every((byte) => byte === 0)) break;
    const field = (start: number, length: number) =>
      header.subarray(start, start + length).toString("utf8").replace(/\0.*$/s, "");
    const size = parseInt(field(124, 12).trim() || "0", 8);
    const type = field(156, 1) || "0";
    const prefix = field(345, 155);
    const path = prefix ? `${prefix}/${field(0, 100)}` : field(0, 100);
    offset += BLOCK;
    // Extended headers (pax) would only matter for long names, which npm's runtimes do not have.
    if (type === "0") files.set(path, Buffer.from(tar.subarray(offset, offset + size)));
    offset += Math.ceil(size / BLOCK) * BLOCK;
  }
  return files;
}

/** MS-DOS date and time, in UTC so that the archive does not depend on the machine's zone. */
function dosDateTime(mtime: number): { date: number; time: number } {
  const d = new Date(Math.max(mtime, 315532800) * 1000); // DOS dates start in 1980
  return {
    date: ((d.getUTCFullYear() - 1980) << 9) | ((d.getUTCMonth() + 1) << 5) | d.getUTCDate(),
    time: (d.getUTCHours() << 11) | (d.getUTCMinutes() << 5) | (d.getUTCSeconds() >> 1),
  };
}

/** A zip archive of `entries` (deflated; unix modes kept), every entry dated `mtime`. */
export async function zip(entries: Entry[], mtime: number): Promise<Buffer> {
  const { date, time } = dosDateTime(mtime);
  const records: ZipRecord[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.path, "utf8");
    const data = entry.data ?? new Uint8Array();
    const packed = entry.data ? await deflateRawAsync(data, { level: LEVEL }) : Buffer.alloc(0);
    if (offset + 30 + name.length + packed.length >= 0xffffffff) {
      throw new Error("zip: archives over 4 GB need zip64, which this writer does not do");
    }
    const unixType = entry.data ? 0o100000 : 0o040000;
    const dosDirectory = entry.data ? 0 : 0x10;
    records.push({
      name,
      packed,
      crc: crc32(data),
      size: data.length,
      method: entry.data ? 8 : 0,
      version: 20, // version needed: 2.0 (deflate)
      madeBy: (3 << 8) | 20, // made by: Unix, so the mode below is read
      time,
      date,
      external: (((unixType | entry.mode) << 16) | dosDirectory) >>> 0,
    });
    offset += 30 + name.length + packed.length;
  }
  return zipArchive(records);
}
