/**
 * The generated tree the search benchmark runs on (search_bench.ts): several thousand source-like
 * files of mixed sizes in nested directories, a repository root (`.git`, so rg honours the
 * `.gitignore`) whose `.gitignore` excludes `*.log` files and `build/` directories. The same seed
 * gives the same tree, so runs compare.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface Corpus {
  root: string;
  files: number;
  bytes: number;
}

const WORDS = (
  "alpha beta gamma delta value index count result error buffer stream reader writer " +
  "config option handler request response server client token parse render update " +
  "cache entry record field table query filter map reduce merge split join trim"
).split(" ");
const EXTENSIONS = [".ts", ".ts", ".js", ".md", ".json", ".txt", ".log"];

/** A small deterministic generator (mulberry32). */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One file's text: code-like lines, some holding the tokens the bench searches for. */
function fileText(next: () => number, bytes: number): string {
  const pick = <T>(list: T[]) => list[Math.floor(next() * list.length)];
  const lines: string[] = [];
  let size = 0;
  // About one file in twelve mentions the literal, one in twenty the mixed-case word.
  const literal = next() < 0.08;
  const mixedCase = next() < 0.05;
  while (size < bytes) {
    const roll = next();
    let line: string;
    if (roll < 0.04) {
      line = `export function ${pick(WORDS)}Handler(${pick(WORDS)}: string) {`;
    } else if (literal && roll < 0.05) {
      line = `  // TODO_frobnicate the ${pick(WORDS)} ${pick(WORDS)}`;
    } else if (mixedCase && roll < 0.06) {
      line = `  const Frobnicator = ${pick(["FROBNICATOR", "frobnicator", "FrobNicator"])};`;
    } else {
      const words = 3 + Math.floor(next() * 9);
      line = "  " + Array.from({ length: words }, () => pick(WORDS)).join(" ") + ";";
    }
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join("\n") + "\n";
}

/** Writes the tree under `root` (which must not exist yet). */
export function makeCorpus(root: string, files = 6_000, seed = 17): Corpus {
  const next = random(seed);
  let bytes = 0;
  mkdirSync(join(root, ".git"), { recursive: true });
  writeFileSync(join(root, ".git", "HEAD"), "ref: refs/heads/main\n");
  writeFileSync(join(root, ".gitignore"), "*.log\nbuild/\n");
  for (let i = 0; i < files; i++) {
    // Nested 1 to 4 levels deep, 6 directories per level; one directory in 30 is a build/.
    const depth = 1 + Math.floor(next() * 4);
    const parts = ["src"];
    for (let d = 1; d < depth; d++) parts.push(`m${Math.floor(next() * 6)}`);
    if (next() < 1 / 30) parts.push("build");
    const dir = join(root, ...parts);
    mkdirSync(dir, { recursive: true });
    // Mostly 1–8 KB, one in ten 20–100 KB, one in a thousand 1–2 MB.
    const roll = next();
    const size = roll < 0.001
      ? 1_000_000 + next() * 1_000_000
      : roll < 0.1
      ? 20_000 + next() * 80_000
      : 1_000 + next() * 7_000;
    const text = fileText(next, size);
    const ext = EXTENSIONS[Math.floor(next() * EXTENSIONS.length)];
    writeFileSync(join(dir, `f${i}${ext}`), text);
    bytes += text.length;
  }
  return { root, files, bytes };
}
