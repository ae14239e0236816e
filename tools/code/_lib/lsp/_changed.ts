/**
 * Files a code tool changed in a call, by the call's arguments: the diagnostics hook reads them
 * after the call (the paths are not in the arguments).
 */
const changed = new WeakMap<Record<string, unknown>, string[]>();

export function reportChanged(args: Record<string, unknown>, paths: string[]): void {
  changed.set(args, paths);
}

export function changedBy(args: Record<string, unknown>): string[] | undefined {
  return changed.get(args);
}
