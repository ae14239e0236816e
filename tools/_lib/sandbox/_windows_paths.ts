/**
 * The sandbox's path rules on Windows, pure (node:path's win32 rules on any machine) so they are
 * unit-tested on Linux (tests/common/windows_paths_test.ts):
 * - `\\?\C:\x` is `C:\x` and `\\?\UNC\server\share\x` is `\\server\share\x`; the device
 *   namespace (`\\.\`, `\\?\GLOBALROOT`, `\\?\Volume{…}`) is refused;
 * - comparison ignores case and treats `/` as `\` (NTFS and SMB are case-insensitive);
 * - containment is by whole segments: `C:\a-b` and `C:\ab` are not inside `C:\a`;
 * - a path with a reserved device name as a segment (CON, NUL, COM1, `nul.txt`, `con  `) is
 *   refused: it names a device, not a file in the root.
 * - a `:` after the drive names an alternate data stream (`file.txt:hidden`): refused, since a
 *   stream hides data in a file no listing shows;
 * Junctions and symlinks are resolved before these rules apply (realpath, as on POSIX); there is
 * no descriptor-held root on Windows, so the sandbox checks the path and then uses it.
 */
import { win32 } from "node:path";

/** `\\?\` and `\\?\UNC\` removed; undefined for a device-namespace path. */
export function withoutLongPrefix(path: string): string | undefined {
  const p = path.replace(/\//g, "\\");
  if (/^\\\\\?\\UNC\\/i.test(p)) return "\\\\" + p.slice(8);
  if (/^\\\\\?\\[A-Za-z]:(\\|$)/.test(p)) return p.slice(4);
  if (/^\\\\[?.]\\/.test(p) || /^\\\?\?\\/.test(p)) return undefined;
  return p;
}

/** The form paths are compared in: normalized, no long prefix, lower case, no trailing `\`. */
export function windowsPathKey(path: string): string | undefined {
  const plain = withoutLongPrefix(path);
  if (plain === undefined) return undefined;
  let key = win32.normalize(plain).toLowerCase();
  const root = win32.parse(key).root;
  while (key.length > root.length && key.endsWith("\\")) key = key.slice(0, -1);
  return key;
}

/** Whether `path` is `root` or lies inside it, by whole segments, ignoring case. */
export function windowsContains(root: string, path: string): boolean {
  const r = windowsPathKey(root);
  const p = windowsPathKey(path);
  if (r === undefined || p === undefined) return false;
  return p === r || p.startsWith(r.endsWith("\\") ? r : r + "\\");
}

const RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³]|conin\$|conout\$)$/i;

/**
 * The first segment of `path` that names a device (`CON`, `nul.txt`, `COM1 `), or undefined.
 * Windows ignores an extension and trailing dots and spaces when it matches these names.
 */
export function reservedSegment(path: string): string | undefined {
  const plain = withoutLongPrefix(path) ?? path;
  const root = win32.parse(plain).root;
  for (const segment of plain.slice(root.length).split(/[\\/]/)) {
    const stem = segment.replace(/[. ]+$/, "").split(".")[0].replace(/ +$/, "");
    if (RESERVED.test(stem)) return segment;
  }
  return undefined;
}

/** The first segment of `path` that names an alternate data stream (`a.txt:s`, `a::$DATA`). */
export function streamSegment(path: string): string | undefined {
  const plain = withoutLongPrefix(path) ?? path;
  const root = win32.parse(plain).root;
  return plain.slice(root.length).split(/[\\/]/).find((segment) => segment.includes(":"));
}

/** Why `path` is refused before it is resolved, or undefined when it may be resolved. */
export function windowsPathProblem(path: string): string | undefined {
  if (withoutLongPrefix(path) === undefined) {
    return "is in the Windows device namespace (\\\\.\\ or \\\\?\\ without a drive or UNC share)";
  }
  const device = reservedSegment(path);
  if (device !== undefined) {
    return `names the Windows device ${JSON.stringify(device)} (CON, NUL, COM1… are reserved)`;
  }
  const stream = streamSegment(path);
  if (stream !== undefined) {
    return `names an alternate data stream (${
      JSON.stringify(stream)
    }): a ':' is allowed only after the drive letter`;
  }
  return undefined;
}
