/**
 * The `path` property of the file and search tools' input schemas: what the path names is each
 * tool's own, how a path is read is said here once. As a property of a tool's `input` schema they
 * keep the argument typed as a string.
 */

/** A path the call needs: `what` it names, then how a relative one is read. */
export function pathProperty(what: string) {
  return {
    type: "string",
    minLength: 1,
    description: `${what}; relative to the first allowed root.`,
  } as const;
}

/** A path the call may leave out: `what` it names, then where the call works without it. */
export function pathOrRootProperty(what: string) {
  return { type: "string", description: `${what} (default: the first allowed root).` } as const;
}

/**
 * The `force` argument of the tools that replace a file (their `writes.force`): overwrite a file
 * changed since this session last read it (the edit transaction's check refuses otherwise).
 */
export const FORCE_PROPERTY = {
  type: "boolean",
  description: "Overwrite changes made since your last read.",
} as const;
