/**
 * The diagnostics a server publishes (`textDocument/publishDiagnostics`), each set tied to the
 * version of the document it is about: the version the server names, or, from a server that
 * names none, the version toolhost had sent last when the set arrived. A wait for one version's
 * diagnostics is answered only by a set of that version received after the version was sent,
 * so a set about an older text never passes for the newer one (issue 34, items 2 and 5).
 */
import type { Diagnostic } from "./_protocol.ts";

/** Sets kept at most (one per file, the newest). */
const MAX_FILES = 5000;
/** Diagnostics kept of one set. */
const MAX_ITEMS = 1000;

export interface PublishedSet {
  items: Diagnostic[];
  /** The version the server named, if it did. */
  named?: number;
  /** The version this set is about: `named`, else the version open when it arrived. */
  version?: number;
  /** Its place in the order of arrival. */
  seq: number;
}

export class Published {
  #sets = new Map<string, PublishedSet>();
  #seq = 0;
  #waiters: (() => void)[] = [];

  /** The sequence number of the last set received (0: none yet). */
  get sequence(): number {
    return this.#seq;
  }

  /** Records a set; `openVersion` is the version of `uri` toolhost has sent last, if open. */
  record(
    uri: string,
    named: number | undefined,
    items: Diagnostic[],
    openVersion: number | undefined,
  ): void {
    this.#sets.delete(uri);
    this.#sets.set(uri, {
      items: items.slice(0, MAX_ITEMS),
      named,
      version: named ?? openVersion,
      seq: ++this.#seq,
    });
    if (this.#sets.size > MAX_FILES) this.#sets.delete(this.#sets.keys().next().value!);
    this.wake();
  }

  latest(uri: string): PublishedSet | undefined {
    return this.#sets.get(uri);
  }

  forget(uri: string): void {
    this.#sets.delete(uri);
  }

  /** Every file's latest set. */
  all(): Map<string, Diagnostic[]> {
    return new Map([...this.#sets].map(([uri, set]) => [uri, set.items]));
  }

  /**
   * The set of `uri` about `version` received after sequence `after` (when that version was
   * sent), waiting until `deadline`; undefined when none came, or when `current()` moved past
   * `version` (a newer text was sent: no later set can be about the old one).
   */
  async of(
    uri: string,
    version: number,
    after: number,
    deadline: number,
    current: () => number | undefined,
    signal?: AbortSignal,
  ): Promise<Diagnostic[] | undefined> {
    for (;;) {
      const set = this.#sets.get(uri);
      if (set && set.seq > after && set.version === version) return set.items;
      if (set?.named !== undefined && set.named > version && set.seq > after) return undefined;
      if (current() !== version || signal?.aborted) return undefined;
      if (Date.now() >= deadline) return undefined;
      await this.next(deadline, signal);
    }
  }

  /** Resolves at the next set (or anything else that wakes waiters), or at `deadline`. */
  next(deadline: number, signal?: AbortSignal): Promise<void> {
    return new Promise((wake) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", done);
        wake();
      };
      const timer = setTimeout(done, Math.max(deadline - Date.now(), 0));
      signal?.addEventListener("abort", done, { once: true });
      this.#waiters.push(done);
    });
  }

  /** Wakes every waiter (a new version was sent, the server ended). */
  wake(): void {
    for (const wake of this.#waiters.splice(0)) wake();
  }
}
