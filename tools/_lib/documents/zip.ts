/**
 * Office documents are zip archives, and the libraries that read them (mammoth, exceljs) inflate
 * every entry with JSZip, however large. So an archive is opened here first, within bounds:
 * the central directory is read, each wanted entry is inflated with a cap on its output (the
 * sizes an archive claims are not trusted), XML parts that declare a DTD are refused (no
 * office program writes one; it is how entity-expansion bombs start), and what passed is
 * written back as a zip of stored entries, which the library then reads without inflating.
 */
import { Buffer } from "node:buffer";
import { inflateRawSync } from "node:zlib";
import { DocumentError } from "./types.ts";
import { zipArchive } from "./zip_write.ts";

/**
 * Bytes all inflated entries may add up to. Held twice while the stored copy is written, then
 * read by a library that builds objects from all of it (exceljs takes 8 times as much): past
 * this, the document would take the server past its memory bound (memory_guard.ts) anyway.
 */
export const MAX_INFLATED_BYTES = 24 * 1024 * 1024;
/** Entries an archive may list. */
export const MAX_ENTRIES = 10_000;

export interface ZipLimits {
  maxInflated?: number;
  /** Entries left out (not inflated), e.g. media the extraction never reads. */
  skip?: (name: string) => boolean;
}

interface Entry {
  name: string;
  method: number;
  flags: number;
  crc: number;
  packedSize: number;
  size: number;
  localOffset: number;
}

function centralDirectory(zip: Buffer, what: string): Entry[] {
  // The end-of-central-directory record: in the last 64 KB + 22 bytes.
  let end = -1;
  for (let at = zip.length - 22; at >= Math.max(0, zip.length - 65_557); at--) {
    if (zip.readUInt32LE(at) === 0x06054b50) {
      end = at;
      break;
    }
  }
  if (end < 0) {
    throw new DocumentError(`${what} is damaged: its zip directory is missing (a truncated file?)`);
  }
  const total = zip.readUInt16LE(end + 10);
  const offset = zip.readUInt32LE(end + 16);
  if (total === 0xffff || offset === 0xffffffff) {
    throw new DocumentError(`${what} is a zip64 archive, which is not read here`);
  }
  if (total > MAX_ENTRIES) {
    throw new DocumentError(`${what} lists ${total} entries, over the ${MAX_ENTRIES} allowed`);
  }
  const entries: Entry[] = [];
  let at = offset;
  for (let i = 0; i < total; i++) {
    if (at + 46 > zip.length || zip.readUInt32LE(at) !== 0x02014b50) {
      throw new DocumentError(`${what} is damaged: its zip directory is broken`);
    }
    const nameLength = zip.readUInt16LE(at + 28);
    const extra = zip.readUInt16LE(at + 30);
    const comment = zip.readUInt16LE(at + 32);
    entries.push({
      flags: zip.readUInt16LE(at + 8),
      method: zip.readUInt16LE(at + 10),
      crc: zip.readUInt32LE(at + 16),
      packedSize: zip.readUInt32LE(at + 20),
      size: zip.readUInt32LE(at + 24),
      localOffset: zip.readUInt32LE(at + 42),
      name: zip.toString("utf8", at + 46, at + 46 + nameLength),
    });
    at += 46 + nameLength + extra + comment;
  }
  return entries;
}

/** Whether an XML part declares a DTD (in UTF-8, or in UTF-16 of either order). */
function declaresDtd(data: Buffer): boolean {
  const text = data.toString("latin1", 0, Math.min(data.length, 64 * 1024)).replace(/\0/g, "");
  return /<!DOCTYPE|<!ENTITY/i.test(text);
}

/**
 * The archive's entries inflated within `limits`, as a new archive of stored entries; throws
 * DocumentError for an archive that is damaged, encrypted, or inflates past the limits.
 */
export function boundedZip(zip: Buffer, what: string, limits: ZipLimits = {}): Buffer {
  const budget = limits.maxInflated ?? MAX_INFLATED_BYTES;
  let used = 0;
  const out: { name: Buffer; data: Buffer; crc: number }[] = [];
  for (const entry of centralDirectory(zip, what)) {
    if (entry.name.endsWith("/") || limits.skip?.(entry.name)) continue;
    if (entry.flags & 1) {
      throw new DocumentError(`${what} is encrypted; it cannot be read without its password`);
    }
    const local = entry.localOffset;
    if (local + 30 > zip.length || zip.readUInt32LE(local) !== 0x04034b50) {
      throw new DocumentError(
        `${what} is damaged: the entry ${entry.name} is missing (a truncated file?)`,
      );
    }
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const packed = zip.subarray(start, start + entry.packedSize);
    if (start + entry.packedSize > zip.length) {
      throw new DocumentError(
        `${what} is damaged: the entry ${entry.name} is cut short (a truncated file?)`,
      );
    }
    const left = budget - used;
    let data: Buffer;
    if (entry.method === 0) {
      data = packed;
    } else if (entry.method === 8) {
      try {
        // One byte over what is left: an entry that reaches it is over the budget.
        data = inflateRawSync(packed, { maxOutputLength: Math.max(1, left + 1) });
      } catch (error) {
        if ((error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") tooBig(what, budget);
        throw new DocumentError(`${what} is damaged: the entry ${entry.name} does not inflate`);
      }
    } else {
      throw new DocumentError(
        `${what} uses zip compression method ${entry.method}, which is not read here`,
      );
    }
    used += data.length;
    if (used > budget) tooBig(what, budget);
    if (/\.(xml|rels)$/i.test(entry.name) && declaresDtd(data)) {
      throw new DocumentError(
        `${what} holds an XML part with a DTD (${entry.name}), which office files never have; refused`,
      );
    }
    out.push({ name: Buffer.from(entry.name, "utf8"), data, crc: entry.crc });
  }
  return storedZip(out);
}

function tooBig(what: string, budget: number): never {
  throw new DocumentError(
    `${what} inflates to more than ${
      Math.round(budget / 1024 / 1024)
    } MB (a zip bomb, or a document too large to read here)`,
  );
}

function storedZip(entries: { name: Buffer; data: Buffer; crc: number }[]): Buffer {
  return zipArchive(
    entries.map(({ name, data, crc }) => ({
      name,
      packed: data,
      crc,
      size: data.length,
      method: 0,
      version: 10,
    })),
  );
}
