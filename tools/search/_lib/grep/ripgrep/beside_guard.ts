/**
 * rg's search while the guard (guard.ts) runs beside it. rg starts at once, under the
 * guard's memory cap and without --max-filesize (find looks for files over the limit instead, on
 * the other core); its results are held until the guard has spoken:
 * - an ignore file rg cannot read: rg is killed at once and nothing of it is reported; the
 *   findings go back for another engine to take over;
 * - a file over the size limit while rg is still running: rg is killed and searches again with
 *   --max-filesize (had it finished, its answer stands: a file it reports is read again and
 *   dropped when too large, so only its time was at stake);
 * - neither: what was held is reported, and the rest as it comes.
 * An rg that fails meanwhile (a huge file may have met the cap, or the cap rg) searches again
 * once the guard has cleared the tree, with --max-filesize and without the cap, reporting only
 * files not reported yet: its failure then is the answer.
 */
import type { SkippedIgnoreFile } from "../../../../_lib/sandbox/mod.ts";
import { COMPLETE, drain, type GrepOutcome } from "../engine.ts";
import type { GrepQuery } from "../query.ts";
import type { FileMatches } from "../report.ts";
import { type GuardFindings, RG_DATA_LIMIT_BYTES } from "./guard.ts";
import { ripgrepBatches } from "./ripgrep_batches.ts";

/**
 * Runs the search. Returns the odd ignore files the guard found (then nothing was reported, and
 * another engine must answer), else none and how rg's search ended.
 */
export async function searchBesideGuard(
  rg: string,
  search: GrepQuery,
  guard: Promise<GuardFindings>,
  report: (file: FileMatches) => void,
): Promise<{ odd: SkippedIgnoreFile[]; outcome: GrepOutcome }> {
  const stopRg = new AbortController();
  const signal = AbortSignal.any([search.signal, stopRg.signal]);
  let findings: GuardFindings | undefined;
  let rgEnded = false;
  /** Whether rg was stopped to search again with --max-filesize. */
  let again = false;
  guard.then((found) => {
    if (found.odd.length > 0) stopRg.abort();
    else if (found.largeFiles && !rgEnded) {
      again = true;
      stopRg.abort();
    }
    findings = found;
  }, () => stopRg.abort());
  const held: FileMatches[][] = [];
  /** Files already reported, which a search again must not report twice. */
  const shown = new Set<string>();
  const show = (file: FileMatches) => {
    shown.add(file.path);
    report(file);
  };
  let outcome: GrepOutcome = COMPLETE;
  let failure: unknown;
  try {
    const run = { signal, dataLimit: RG_DATA_LIMIT_BYTES, withoutSizeLimit: true };
    outcome = await drain(ripgrepBatches(rg, search, run), (batch) => {
      // An odd ignore file found: nothing of rg is shown, even what it still hands over.
      if (findings !== undefined && findings.odd.length > 0) return;
      if (findings === undefined || again) held.push(batch);
      else {
        for (const file of held.splice(0).flat()) show(file);
        for (const file of batch) show(file);
      }
    });
  } catch (error) {
    failure = error;
  } finally {
    rgEnded = true;
  }
  const found = await guard;
  if (found.odd.length > 0 || search.signal.aborted) return { odd: found.odd, outcome: COMPLETE };
  // A failure without --max-filesize (a huge file read before the guard ended may have met the
  // cap) is not yet rg's answer: it searches again with it, and without the cap, which may itself
  // have been the failure (an allocator that reserves more than it uses, on a machine with many
  // cores); the guard has cleared the tree, so rg runs as it did when the guard ran first.
  // Stopped for a file over the limit, it stays capped: nothing failed.
  if (again || failure !== undefined) {
    const run = { dataLimit: failure === undefined ? RG_DATA_LIMIT_BYTES : undefined };
    const second = await drain(ripgrepBatches(rg, search, run), (batch) => {
      for (const file of batch) if (!shown.has(file.path)) report(file);
    });
    return { odd: [], outcome: second };
  }
  for (const file of held.flat()) report(file);
  return { odd: [], outcome };
}
