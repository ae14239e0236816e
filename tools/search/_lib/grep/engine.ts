/**
 * The seam between grep and the engines that search for it (ripgrep/, builtin/): an engine is
 * given a query it only reads, hands the files with matches to the results as it finds them, and
 * returns how the search ended. Which engine answers is chosen once (choose_engine.ts).
 */
import type { GrepQuery } from "./query.ts";
import type { FileMatches } from "./report.ts";

/** How a search ended, besides the files it found. */
export interface GrepOutcome {
  /** Why the search ended before it was complete, if it did. */
  readonly stopped?: string;
  /** Some files could not be read, so the results may miss matches in them. */
  readonly unreadable: boolean;
}

/** A search that ended with nothing to say (the outcome of one cut short by a cancel). */
export const COMPLETE: GrepOutcome = { unreadable: false };

/** Where an engine hands its files (GrepReport is one). */
export interface GrepResults {
  /** A file with matches; files come in path order. */
  add(file: FileMatches): void;
  /** Whether nothing more will be shown: an engine may then count lines without their text. */
  readonly full: boolean;
}

/**
 * One way of searching: files with matches in path order, and the outcome.
 *
 * @example
 * ```ts
 * const engine = chooseEngine();
 * engine.check(args.pattern, caseInsensitive); // before anything is opened
 * const report = new GrepReport({ mode, maxChars, context: false, display });
 * const { stopped, unreadable } = await engine.search(query, report);
 * const { text } = report.finish(label, stopped);
 * ```
 */
export interface GrepEngine {
  /** Throws a ToolError saying what to change when this engine will not run `pattern`. */
  check(pattern: string, caseInsensitive: boolean): void;
  /** Searches as `query` says, handing each file with matches to `results`, in path order. */
  search(query: GrepQuery, results: GrepResults): Promise<GrepOutcome>;
}

/**
 * Runs `batches` to its end, handing each value to `each`, and returns what it returned. Left
 * early (`each` threw), the generator is closed, so what it started (an rg) is stopped.
 */
export async function drain<T, R>(
  batches: AsyncGenerator<T, R>,
  each: (value: T) => void,
): Promise<R> {
  let done = false;
  try {
    for (;;) {
      const step = await batches.next();
      if (step.done) {
        done = true;
        return step.value;
      }
      each(step.value);
    }
  } finally {
    if (!done) await batches.return(undefined as R);
  }
}
