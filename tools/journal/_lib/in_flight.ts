/**
 * The calls of this server that the journal is keeping paths for and has not yet recorded: from
 * the moment their paths are kept to the moment their line is in the journal file. A command's
 * observation (observed/) reads them, with the journal's lines, to leave out of the command's
 * change what another call changed meanwhile: a call counted here is either still here or
 * already in the file, never in neither.
 */

/** What the recorder keeps for one call: each path it kept, once kept. */
export interface KeptPaths {
  kept: Promise<{ before: { path: string }[] } | undefined>[];
}

const calls = new Set<KeptPaths>();

export function callStarted(call: KeptPaths): void {
  calls.add(call);
}

/** Called once the call's line is in the journal file (or the call was never recorded). */
export function callRecorded(call: KeptPaths): void {
  calls.delete(call);
}

/** The real paths the calls in flight have kept (so may be changing), each with its tool. */
export async function pathsInFlight(): Promise<Map<string, string>> {
  const paths = new Map<string, string>();
  for (const call of [...calls]) {
    for (const kept of await Promise.all(call.kept)) {
      for (const { path } of kept?.before ?? []) paths.set(path, "a call still under way");
    }
  }
  return paths;
}
