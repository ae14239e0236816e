/** The wasm files the binary embeds (scripts/build.ts), as paths from the project's root. */
import { GRAMMARS, RUNTIME } from "../languages/mod.ts";
import { embeddedWasmPaths } from "./grammar_bytes.ts";

export const WASM_FILES: string[] = embeddedWasmPaths([RUNTIME, ...Object.values(GRAMMARS)]);
