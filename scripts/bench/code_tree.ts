/**
 * Generated sources for the code benches and tests. writeCodeTree: `files` TypeScript modules, a
 * hundred per directory, each defining a class, a function and a constant and using three other
 * modules' (chosen by a fixed pseudo-random sequence, so every run writes the same tree); about
 * 900 bytes a file, 20,000 files are 18 MB of source. writeHostileFiles: issue 36 §4's.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const PER_DIRECTORY = 100;

function module(i: number, uses: number[]): string {
  const imports = uses.map((u) =>
    `import { helper${u}, Widget${u} } from "../pkg${Math.floor(u / PER_DIRECTORY)}/mod${u}.ts";`
  );
  return `${imports.join("\n")}

/** Widget ${i}: renders itself with its neighbours' help. */
export class Widget${i} {
  constructor(private readonly size: number) {}

  render(): string {
    return ${uses.map((u) => `helper${u}(this.size)`).join(" + ")} + new Widget${
    uses[0]
  }(1).render();
  }

  resize(by: number): Widget${i} {
    return new Widget${i}(this.size + by);
  }
}

export function helper${i}(value: number): string {
  return String(value * LIMIT${i});
}

export const LIMIT${i} = ${i};
`;
}

/** Writes the tree under `dir` (which must exist) and returns how many files it holds. */
export function writeCodeTree(dir: string, files: number): number {
  let seed = 12345;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) % files;
  for (let i = 0; i < files; i++) {
    const directory = join(dir, `pkg${Math.floor(i / PER_DIRECTORY)}`);
    if (i % PER_DIRECTORY === 0) mkdirSync(directory, { recursive: true });
    writeFileSync(join(directory, `mod${i}.ts`), module(i, [next(), next(), next()]));
  }
  return files;
}

/** The hostile files of issue 36 §4, 1 MiB each, and a small file the map must still show. */
export function writeHostileFiles(dir: string): void {
  const size = 1024 * 1024;
  writeFileSync(join(dir, "minus.rs"), `fn f() { let x = ${"-".repeat(size - 30)}1; }\n`);
  writeFileSync(join(dir, "not.ts"), `let y = ${"!".repeat(size - 20)}x;\n`);
  writeFileSync(join(dir, "ternary.ts"), `let y = ${"x?1:".repeat((size - 20) / 4)}1;\n`);
  writeFileSync(join(dir, "names.js"), `var ${"a,".repeat((size - 10) / 2)}b;\n`);
  writeFileSync(join(dir, "fine.py"), "def fine():\n    return 1\n");
}
