/**
 * The parse cache's last write: a map that parsed new files writes the project's cache before it
 * answers (outlines/_disk_cache.ts); a server stopping while a write is under way (a call
 * cancelled, another session's map) lets it finish, so the next session starts warm.
 */
import { defineShutdownHook } from "../../mcp/features/mod.ts";
import { flushDiskStores } from "./_lib/outlines/mod.ts";

export default defineShutdownHook({ name: "parse cache", run: () => flushDiskStores() });
