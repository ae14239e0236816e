/**
 * The check that keeps a write from losing another's edit (files/_lib/seen_files.ts): every call
 * that replaces a file passes it, whichever tool makes it.
 */
import { seenFilesHook } from "./_lib/seen_files.ts";

export default seenFilesHook;
