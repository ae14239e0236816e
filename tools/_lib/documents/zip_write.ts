/**
 * Writing a zip archive, shared by the document reader (documents/zip.ts, which rewrites an
 * office file stored), the release (scripts/release/archive.ts) and the tests' fixtures. Pure:
 * it lays out the headers of entries already packed; compressing them is the caller's.
 */
import { Buffer } from "node:buffer";

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

/** One entry, packed: its headers are written as given. */
export interface ZipRecord {
  /** The name, UTF-8 (flagged so in the headers). */
  name: Uint8Array;
  /** The bytes as stored: deflated for method 8, as they are for method 0. */
  packed: Uint8Array;
  /** CRC-32 of the unpacked bytes. */
  crc: number;
  /** The unpacked size the headers claim. */
  size: number;
  /** 0 stored, 8 deflated. */
  method: number;
  /** Version needed to extract: 10 (stored only) or 20 (deflate). */
  version: number;
  /** "Version made by" of the central record; default `version`. */
  madeBy?: number;
  /** MS-DOS time and date; default 0. */
  time?: number;
  date?: number;
  /** External attributes of the central record (unix mode in the high half); default 0. */
  external?: number;
}

/** The archive of `records`, in order, with its central directory. No zip64. */
export function zipArchive(records: ZipRecord[]): Buffer {
  const locals: Uint8Array[] = [];
  const central: Uint8Array[] = [];
  let offset = 0;
  for (const entry of records) {
    const { name, packed, crc, size, method, version, time = 0, date = 0 } = entry;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(version, 4);
    local.writeUInt16LE(0x0800, 6); // names are UTF-8
    local.writeUInt16LE(method, 8);
    local.writeUInt16LE(time, 10);
    local.writeUInt16LE(date, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    locals.push(local, name, packed);
    const record = Buffer.alloc(46);
    record.writeUInt32LE(0x02014b50, 0);
    record.writeUInt16LE(entry.madeBy ?? version, 4);
    record.writeUInt16LE(version, 6);
    record.writeUInt16LE(0x0800, 8);
    record.writeUInt16LE(method, 10);
    record.writeUInt16LE(time, 12);
    record.writeUInt16LE(date, 14);
    record.writeUInt32LE(crc, 16);
    record.writeUInt32LE(packed.length, 20);
    record.writeUInt32LE(size, 24);
    record.writeUInt16LE(name.length, 28);
    record.writeUInt32LE(entry.external ?? 0, 38);
    record.writeUInt32LE(offset, 42);
    central.push(record, name);
    offset += local.length + name.length + packed.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(records.length, 8);
  end.writeUInt16LE(records.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}
