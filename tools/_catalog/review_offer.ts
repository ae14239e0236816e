/**
 * What `toolhost review` offers: the review app and the journal tools it calls (history_changes
 * for its data, undo for its buttons), whatever the configuration's profile and lists say, and
 * nothing that runs a command or touches a file otherwise.
 */
import type { Settings } from "../../config/settings.ts";

/** The tools the review app calls. */
export const REVIEW_TOOLS = ["history", "history_changes", "undo"];

/**
 * `settings` narrowed to the review app's tools (read_only still takes undo away).
 *
 * @example
 * ```ts
 * const assembled = await assemble(reviewSettings(loaded.settings));
 * ```
 */
export function reviewSettings(settings: Settings): Settings {
  return {
    ...settings,
    toolsProfile: "full",
    toolsAllow: REVIEW_TOOLS,
    toolsDeny: [],
    customTools: {},
  };
}
