/**
 * A person's "always" for a host a command reached for is written to their configuration file
 * while the command goes on (tools/_lib/confine); a server stopping meanwhile waits for the write,
 * so the answer is not asked again next time.
 */
import { defineShutdownHook } from "../../mcp/features/mod.ts";
import { alwaysAnswersWritten } from "../_lib/confine/mod.ts";

export default defineShutdownHook({
  name: "network answers",
  run: () => alwaysAnswersWritten(),
});
