/**
 * A grammar's wasm bytes. In the binary they are embedded files (scripts/build.ts passes each
 * .wasm to `bun build --compile`, which lists them in Bun.embeddedFiles under their name,
 * perhaps with a hash after it); from source, under Deno or Bun, they are read from
 * node_modules beside the project.
 */
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import type { GrammarFile } from "../languages/mod.ts";

interface EmbeddedFile extends Blob {
  name: string;
}

function embedded(): EmbeddedFile[] | undefined {
  const bun = (globalThis as { Bun?: { embeddedFiles?: EmbeddedFile[] } }).Bun;
  return bun?.embeddedFiles?.length ? bun.embeddedFiles : undefined;
}

/** The bytes of `file`; throws a sentence naming the file when it cannot be found. */
export async function grammarBytes(file: GrammarFile): Promise<Uint8Array> {
  const files = embedded();
  if (files) {
    const pattern = new RegExp(`^${file.stem.replace(/[-.]/g, "\\$&")}(-[a-z0-9]+)?\\.wasm$`);
    const found = files.find((f) => pattern.test(f.name));
    if (found) return new Uint8Array(await found.arrayBuffer());
  }
  const url = new URL(`../../../../node_modules/${file.pkg}/${file.stem}.wasm`, import.meta.url);
  try {
    return await readFile(fileURLToPath(url));
  } catch (error) {
    throw new Error(
      `the grammar ${file.stem}.wasm is missing (${(error as Error).message}); ` +
        "reinstall toolhost (from source: npm ci)",
    );
  }
}

/** Every wasm file the binary must embed, as paths from the project's root (scripts/build.ts). */
export function embeddedWasmPaths(files: GrammarFile[]): string[] {
  return files.map((file) => `node_modules/${file.pkg}/${file.stem}.wasm`);
}
