/**
 * The ripgrep engine: rg searches (ripgrep_batches.ts) while the guard (guard.ts) looks for
 * ignore files rg must not read, beside it on Linux (beside_guard.ts), else first. When it finds
 * one, rg's answer would be wrong or never come: the fallback engine answers instead (the
 * built-in one, chosen in choose_engine.ts), as the built-in walk skips such files and says so.
 */
import type { SkippedIgnoreFile } from "../../../../_lib/sandbox/mod.ts";
import { drain, type GrepEngine, type GrepOutcome, type GrepResults } from "../engine.ts";
import { type GrepQuery, MAX_FILE_BYTES } from "../query.ts";
import type { FileMatches } from "../report.ts";
import { searchBesideGuard } from "./beside_guard.ts";
import { guardBesideRg, guardFindings } from "./guard.ts";
import { ripgrepBatches } from "./ripgrep_batches.ts";

/** The engine that answers for a tree with an ignore file rg must not read. */
export type Fallback = (reason: { why: string; instead: string }) => GrepEngine;

export class RipgrepEngine implements GrepEngine {
  /** `rg`: the executable (ripgrep_path.ts). */
  constructor(readonly rg: string, readonly fallback: Fallback) {}

  /** rg runs any pattern in linear time. */
  check(): void {}

  async search(query: GrepQuery, results: GrepResults): Promise<GrepOutcome> {
    const add = (file: FileMatches) => results.add(file);
    // One named file is given to rg on stdin: no ignore file is read.
    if (query.file) return await drain(ripgrepBatches(this.rg, query), (b) => b.forEach(add));
    const stopGuard = new AbortController();
    const beside = guardBesideRg();
    // Beside rg, the guard also looks for files over the size limit, so rg need not stat each.
    const guard = guardFindings(
      query.dir,
      (real) => query.roots.contains(real),
      (real) => query.roots.open(real),
      query.deadline,
      AbortSignal.any([query.signal, stopGuard.signal]),
      query.confinement,
      beside ? MAX_FILE_BYTES : undefined,
    );
    guard.catch(() => {}); // awaited below; a failure while rg runs must not go unhandled
    try {
      if (beside) {
        const { odd, outcome } = await searchBesideGuard(this.rg, query, guard, add);
        return odd.length > 0 ? await this.#fallBack(odd, query, results) : outcome;
      }
      const { odd } = await guard;
      if (odd.length > 0) return await this.#fallBack(odd, query, results);
      return await drain(ripgrepBatches(this.rg, query), (batch) => batch.forEach(add));
    } finally {
      stopGuard.abort();
    }
  }

  /** The fallback's answer for a tree holding `odd` ignore files (it may refuse the pattern). */
  #fallBack(
    odd: SkippedIgnoreFile[],
    query: GrepQuery,
    results: GrepResults,
  ): Promise<GrepOutcome> {
    const engine = this.fallback({
      why: `used instead of rg here, as rg would hang on or misread the ignore file ` +
        `${query.roots.display(odd[0].path)}, which ${odd[0].why}`,
      instead: "or search a directory without such ignore files",
    });
    engine.check(query.pattern.source, query.caseInsensitive);
    return engine.search(query, results);
  }
}
