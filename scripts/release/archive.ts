/**
 * The release archives, written here rather than by the tar and zip programs so that they come
 * out byte for byte the same on any machine for the same commit (fixed owner, modes and times;
 * files in the order given). Also reads the npm tarballs the bun runtimes arrive in.
 */
import { Buffer } from "node:buffer";
import { promisify } from "node:util";
import { deflateRaw, gunzipSync, gzip } from "node:zlib";

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

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

export function crc32(data: Uint8Array): number {
  let crc = 0xffffffff;
  for (let i = 0; i < data.length; i++) crc = CRC_TABLE[(crc ^ data[i]) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
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
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.path, "utf8");
    const data = entry.data ?? new Uint8Array();
    const packed = entry.data ? await deflateRawAsync(data, { level: LEVEL }) : Buffer.alloc(0);
    const crc = crc32(data);
    const method = entry.data ? 8 : 0;
    if (offset + 30 + name.length + packed.length >= 0xffffffff) {
      throw new Error("zip: archives over 4 GB need zip64, which this writer does not do");
    }

    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed: 2.0 (deflate)
    local.writeUInt16LE(0x0800, 6); // names are UTF-8
    local.writeUInt16LE(method, 8);
    local.writeUInt16LE(time, 10);
    local.writeUInt16LE(date, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    locals.push(local, name, packed);

    const record = Buffer.alloc(46);
    record.writeUInt32LE(0x02014b50, 0);
    record.writeUInt16LE((3 << 8) | 20, 4); // made by: Unix, so the mode below is read
    record.writeUInt16LE(20, 6);
    record.writeUInt16LE(0x0800, 8);
    record.writeUInt16LE(method, 10);
    record.writeUInt16LE(time, 12);
    record.writeUInt16LE(date, 14);
    record.writeUInt32LE(crc, 16);
    record.writeUInt32LE(packed.length, 20);
    record.writeUInt32LE(data.length, 24);
    record.writeUInt16LE(name.length, 28);
    const unixType = entry.data ? 0o100000 : 0o040000;
    const dosDirectory = entry.data ? 0 : 0x10;
    record.writeUInt32LE((((unixType | entry.mode) << 16) | dosDirectory) >>> 0, 38);
    record.writeUInt32LE(offset, 42);
    central.push(record, name);

    offset += local.length + name.length + packed.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}
