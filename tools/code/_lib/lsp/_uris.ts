/** Paths as servers name them: file: URIs both ways. */
import { fileURLToPath, pathToFileURL } from "node:url";

export function uriOf(path: string): string {
  return pathToFileURL(path).href;
}

/** The path of a file: URI, or undefined for another scheme (deno:, untitled:). */
export function pathOf(uri: string): string | undefined {
  if (!uri.startsWith("file:")) return undefined;
  try {
    return fileURLToPath(uri);
  } catch {
    return undefined;
  }
}
