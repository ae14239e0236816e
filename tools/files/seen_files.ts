/**
 * The check that keeps a write from losing another's edit, the check phase of the edit
 * transaction (tools/_lib/transaction/_seen.ts): every call that replaces a file, or puts a copy
 * or a moved entry in its place, passes it, whichever tool makes it.
 */
import { seenFilesHook } from "../_lib/transaction/mod.ts";

export default seenFilesHook;
