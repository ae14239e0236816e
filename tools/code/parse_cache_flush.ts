/**
 * The parse cache's last write: a map that parsed new files writes the project's cache a moment
 * later (outlines/_disk_cache.ts); a server stopping meanwhile writes it before it leaves, so the
 * next session starts warm.
 */
import { defineShutdownHook } from "../../mcp/features/mod.ts";
import { flushDiskStores } from "./_lib/outlines/mod.ts";

export default defineShutdownHook({ name: "parse cache", run: () => flushDiskStores() });
