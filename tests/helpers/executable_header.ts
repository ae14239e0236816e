/**
 * What an executable's own header says it is: file format, processor, and for ELF the program
 * interpreter (which names the C library: ld-linux-… for glibc, ld-musl-… for musl).
 * Read from the file's bytes, so a test does not depend on file(1).
 */
import { Buffer } from "node:buffer";
import { closeSync, openSync, readSync } from "node:fs";

export interface ExecutableHeader {
  format: "elf" | "macho" | "pe" | "unknown";
  cpu: "x64" | "arm64" | `other (${string})`;
  /** ELF only: PT_INTERP, e.g. /lib/ld-musl-x86_64.so.1. */
  interpreter?: string;
}

function read(fd: number, position: number | bigint, length: number): Buffer {
  const buffer = Buffer.alloc(length);
  const got = readSync(fd, buffer, 0, length, Number(position));
  return buffer.subarray(0, got);
}

function elf(fd: number, head: Buffer): ExecutableHeader {
  if (head[4] !== 2 || head[5] !== 1) {
    return { format: "elf", cpu: `other (class ${head[4]}, data ${head[5]})` };
  }
  const machine = head.readUInt16LE(0x12);
  const cpu = machine === 0x3e ? "x64" : machine === 0xb7 ? "arm64" : `other (${machine})` as const;
  const phoff = head.readBigUInt64LE(0x20);
  const phentsize = head.readUInt16LE(0x36);
  const phnum = head.readUInt16LE(0x38);
  const table = read(fd, phoff, phentsize * phnum);
  for (let i = 0; i < phnum; i++) {
    const entry = table.subarray(i * phentsize, (i + 1) * phentsize);
    if (entry.readUInt32LE(0) !== 3) continue; // PT_INTERP
    const text = read(fd, entry.readBigUInt64LE(8), Number(entry.readBigUInt64LE(32)));
    return { format: "elf", cpu, interpreter: text.toString("latin1").replace(/\0+$/, "") };
  }
  return { format: "elf", cpu };
}

function pe(fd: number, head: Buffer): ExecutableHeader {
  const offset = head.readUInt32LE(0x3c);
  const header = read(fd, offset, 6);
  if (header.toString("latin1", 0, 4) !== "PE\0\0") return { format: "unknown", cpu: "other (MZ)" };
  const machine = header.readUInt16LE(4);
  const cpu = machine === 0x8664 ? "x64" : machine === 0xaa64 ? "arm64" : `other (${machine})`;
  return { format: "pe", cpu: cpu as ExecutableHeader["cpu"] };
}

export function executableHeader(path: string): ExecutableHeader {
  const fd = openSync(path, "r");
  try {
    const head = read(fd, 0, 64);
    if (head.toString("latin1", 0, 4) === "\x7fELF") return elf(fd, head);
    if (head.toString("latin1", 0, 2) === "MZ") return pe(fd, head);
    if (head.readUInt32LE(0) === 0xfeedfacf) {
      const type = head.readUInt32LE(4);
      const cpu = type === 0x01000007 ? "x64" : type === 0x0100000c ? "arm64" : `other (${type})`;
      return { format: "macho", cpu: cpu as ExecutableHeader["cpu"] };
    }
    return { format: "unknown", cpu: `other (${head.subarray(0, 4).toString("hex")})` };
  } finally {
    closeSync(fd);
  }
}
