/**
 * rg's search while the guard (grep_rg_guard.ts) runs beside it. rg starts at once, under the
 * guard's memory cap and without --max-filesize (find looks for files over the limit instead, on
 * the other core); its results are held until the guard has spoken:
 * - an ignore file rg cannot read: rg is killed at once and nothing of it is reported; the
 *   findings go back for the built-in search to take over;
 * - a file over the size limit while rg is still running: rg is killed and searches again with
 *   --max-filesize (had it finished, its answer stands: a file it reports is read again and
 *   dropped when too large, so only its time was at stake);
 * - neither: what was held is reported, and the rest as it comes.
 * An rg that fails meanwhile (a huge file may have met the cap, or the cap rg) searches again
 * once the guard has cleared the tree, with --max-filesize and without the cap, reporting only
 * files not reported yet: its failure then is the answer.
 */
import type { SkippedIgnoreFile } from "../../_lib/sandbox/mod.ts";
import type { FileMatches } from "./grep_report.ts";
import { type GuardFindings, RG_DATA_LIMIT_BYTES } from "./grep_rg_guard.ts";
import { ripgrepBatches } from "./grep_ripgrep.ts";
import type { GrepSearch } from "./grep_search.ts";

/** Runs the search; returns the odd ignore files found (then nothing was reported). */
export async function searchBesideGuard(
  rg: string,
  search: GrepSearch,
  guard: Promise<GuardFindings>,
  report: (file: FileMatches) => void,
): Promise<SkippedIgnoreFile[]> {
  const stopRg = new AbortController();
  const callSignal = search.signal;
  search.signal = AbortSignal.any([callSignal, stopRg.signal]);
  search.rgDataLimit = RG_DATA_LIMIT_BYTES;
  search.rgWithoutSizeLimit = true;
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
  let failure: unknown;
  try {
    for await (const batch of ripgrepBatches(rg, search)) {
      // An odd ignore file found: nothing of rg is shown, even what it still hands over.
      if (findings !== undefined && findings.odd.length > 0) continue;
      if (findings === undefined || again) held.push(batch);
      else {
        for (const file of held.splice(0).flat()) show(file);
        for (const file of batch) show(file);
      }
    }
  } catch (error) {
    failure = error;
  } finally {
    rgEnded = true;
  }
  const found = await guard;
  search.signal = callSignal;
  if (found.odd.length > 0 || callSignal.aborted) {
    search.stopped = search.unreadable = undefined;
    return found.odd;
  }
  // A failure without --max-filesize (a huge file read before the guard ended may have met the
  // cap) is not yet rg's answer: it searches again with it, and without the cap, which may itself
  // have been the failure (an allocator that reserves more than it uses, on a machine with many
  // cores); the guard has cleared the tree, so rg runs as it did when the guard ran first.
  // Stopped for a file over the limit, it stays capped: nothing failed.
  if (again || failure !== undefined) {
    search.stopped = search.unreadable = undefined;
    search.rgWithoutSizeLimit = false;
    if (failure !== undefined) search.rgDataLimit = undefined;
    for await (const batch of ripgrepBatches(rg, search)) {
      for (const file of batch) if (!shown.has(file.path)) report(file);
    }
    return [];
  }
  for (const file of held.flat()) report(file);
  return [];
}
