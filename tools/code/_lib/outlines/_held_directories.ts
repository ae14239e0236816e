/**
 * The directories of a map's files, each opened once beneath its root (Sandbox.directory: no
 * link followed on the way) and held while its files are looked at and read through it with
 * synchronous calls; closed after its last file. Opening each file's path from its root instead
 * took a dozen calls through the event loop per file (about 3 s of the main thread for 20,000).
 */
import { lstatSync, type Stats } from "node:fs";
import { basename, dirname } from "node:path";
import type { Dir, Sandbox } from "../../../_lib/sandbox/mod.ts";

export class HeldDirectories {
  #open = new Map<string, Promise<Dir | undefined>>();
  /** Files not yet done, by directory. */
  #left = new Map<string, number>();

  constructor(readonly sandbox: Sandbox, reals: readonly string[]) {
    for (const real of reals) {
      const dir = dirname(real);
      this.#left.set(dir, (this.#left.get(dir) ?? 0) + 1);
    }
  }

  /** The open directory holding `real` (undefined when it cannot be opened), and its name there. */
  async of(real: string): Promise<{ dir: Dir | undefined; name: string }> {
    const path = dirname(real);
    let opened = this.#open.get(path);
    if (!opened) {
      opened = this.sandbox.directory(path).then(({ dir }) => dir, () => undefined);
      this.#open.set(path, opened);
    }
    return { dir: await opened, name: basename(real) };
  }

  /** What is at `name` in `dir` (a link described, not followed), or undefined. */
  static info(dir: Dir | undefined, name: string): Stats | undefined {
    if (!dir) return undefined;
    try {
      return lstatSync(dir.at(name));
    } catch {
      return undefined;
    }
  }

  /** `real` is done with: its directory closes after its last file. */
  done(real: string): void {
    const path = dirname(real);
    const left = (this.#left.get(path) ?? 1) - 1;
    if (left > 0) {
      this.#left.set(path, left);
      return;
    }
    this.#left.delete(path);
    const opened = this.#open.get(path);
    this.#open.delete(path);
    void opened?.then((dir) => dir?.close()).catch(() => {});
  }

  /** Closes every directory still open (a map cancelled or failed). */
  async close(): Promise<void> {
    const open = [...this.#open.values()];
    this.#open.clear();
    this.#left.clear();
    await Promise.all(open.map((opened) => opened.then((dir) => dir?.close()).catch(() => {})));
  }
}
