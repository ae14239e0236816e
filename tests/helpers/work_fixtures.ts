/**
 * Small projects for the sandbox's real-work tests, made with no network: a C program with a
 * Makefile, a Go module, a crate without dependencies, a Python project whose dependency is a
 * wheel made here and which builds with a backend of its own, and an npm project whose one
 * dependency is a tarball packed here and put in the npm cache of the test's home. Each finder
 * says why its toolchain cannot be used, for the test's skip.
 */
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";

/** The path printed by `command args`, or undefined when it cannot run. */
function output(command: string, args: string[]): string | undefined {
  try {
    return execFileSync(command, args, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] })
      .trim();
  } catch {
    return undefined;
  }
}

/** A program found on PATH, or why not. */
export function tool(name: string): { path: string } | { skip: string } {
  const path = output("sh", ["-c", `command -v ${name}`]);
  return path ? { path } : { skip: `${name} is not installed (.ci/run installs it)` };
}

/** The real cargo and rustc (not rustup's proxies, which need ~/.rustup in the test's home). */
export function rust(): { cargo: string; rustc: string } | { skip: string } {
  const cargo = output("rustup", ["which", "cargo"]) ?? output("sh", ["-c", "command -v cargo"]);
  const rustc = output("rustup", ["which", "rustc"]) ?? output("sh", ["-c", "command -v rustc"]);
  return cargo && rustc
    ? { cargo, rustc }
    : { skip: "cargo is not installed (.ci/run installs it)" };
}

/** The real python3 (not pyenv's shim, which needs its root in the test's home). */
export function python(): { path: string } | { skip: string } {
  const path = output("python3", ["-c", "import sys, venv, ensurepip; print(sys.executable)"]);
  return path ? { path } : { skip: "python3 with venv and ensurepip is not installed" };
}

function files(dir: string, entries: Record<string, string>): void {
  for (const [name, text] of Object.entries(entries)) {
    mkdirSync(join(dir, name, ".."), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
}

export function cProject(dir: string): void {
  files(dir, {
    "hello.c": '#include <stdio.h>\nint main(void) { puts("hello from make"); return 0; }\n',
    "Makefile":
      "hello: hello.c\n\tcc -o hello hello.c\n\ntest: hello\n\t./hello | grep -q 'hello from make' && echo 'make test: ok'\n",
  });
}

export function goProject(dir: string): void {
  files(dir, {
    "go.mod": "module example.com/hello\n\ngo 1.21\n",
    "main.go": 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println(greet()) }\n',
    "greet.go": 'package main\n\nfunc greet() string { return "hello from go" }\n',
    "greet_test.go": 'package main\n\nimport "testing"\n\n' +
      'func TestGreet(t *testing.T) {\n\tif greet() != "hello from go" {\n\t\tt.Fatal(greet())\n\t}\n}\n',
  });
}

export function crate(dir: string): void {
  files(dir, {
    "Cargo.toml": '[package]\nname = "hello_crate"\nversion = "0.1.0"\nedition = "2021"\n',
    "src/main.rs": 'fn main() { println!("hello from cargo"); }\n',
  });
}

/** A wheel file: a zip of the package and its metadata (no build tool needed to make one). */
function wheel(path: string, name: string, module: string): void {
  const dist = `${name}-1.0.dist-info`;
  const entries: Record<string, string> = {
    [`${name}/__init__.py`]: module,
    [`${dist}/METADATA`]: `Metadata-Version: 2.1\nName: ${name}\nVersion: 1.0\n`,
    [`${dist}/WHEEL`]:
      "Wheel-Version: 1.0\nGenerator: toolhost-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
  };
  const script = "import sys, zipfile, json\nentries = json.loads(sys.argv[2])\n" +
    "with zipfile.ZipFile(sys.argv[1], 'w') as z:\n" +
    "    for name, text in entries.items(): z.writestr(name, text)\n" +
    "    z.writestr(sys.argv[3] + '/RECORD', ''.join(n + ',,\\n' for n in entries) + sys.argv[3] + '/RECORD,,\\n')\n";
  execFileSync("python3", ["-c", script, path, JSON.stringify(entries), dist]);
}

/**
 * `dir/wheels/greet-1.0-py3-none-any.whl` and `dir/app`, built by a PEP 517 backend in its own
 * tree (no setuptools or wheel to download), installed with `pip install -e .`.
 */
export function pythonProject(dir: string): void {
  mkdirSync(join(dir, "wheels"), { recursive: true });
  wheel(
    join(dir, "wheels", "greet-1.0-py3-none-any.whl"),
    "greet",
    "def hello(n):\n    return f'hello {n}'\n",
  );
  const backend = `import os, zipfile
NAME, VERSION = "app", "1.0"
DIST = NAME + "-" + VERSION + ".dist-info"

def _wheel(directory, entries):
    name = NAME + "-" + VERSION + "-py3-none-any.whl"
    entries = dict(entries)
    entries[DIST + "/METADATA"] = "Metadata-Version: 2.1\\nName: app\\nVersion: 1.0\\nRequires-Dist: greet\\n"
    entries[DIST + "/WHEEL"] = "Wheel-Version: 1.0\\nGenerator: app\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n"
    with zipfile.ZipFile(os.path.join(directory, name), "w") as z:
        for path, text in entries.items():
            z.writestr(path, text)
        z.writestr(DIST + "/RECORD", "".join(p + ",,\\n" for p in entries) + DIST + "/RECORD,,\\n")
    return name

def get_requires_for_build_editable(config_settings=None):
    return []

def get_requires_for_build_wheel(config_settings=None):
    return []

def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    return _wheel(wheel_directory, {"app.pth": os.path.abspath("src") + "\\n"})

def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    with open("src/app/__init__.py") as f:
        return _wheel(wheel_directory, {"app/__init__.py": f.read()})
`;
  files(join(dir, "app"), {
    "pyproject.toml":
      '[build-system]\nrequires = []\nbuild-backend = "backend"\nbackend-path = ["_build"]\n',
    "_build/backend.py": backend,
    "src/app/__init__.py": "from greet import hello\n\ndef main():\n    return hello('app')\n",
    "tests/test_app.py": "import unittest\nimport app\n\n" +
      "class AppTest(unittest.TestCase):\n    def test_main(self):\n        self.assertEqual(app.main(), 'hello app')\n",
  });
}

/**
 * `dir/greet` packed into a tarball and added to the npm cache of `home`, and `dir/app`, whose
 * lockfile names it by its digest: `npm ci --offline` then installs it from the cache alone.
 */
export function npmProject(dir: string, home: string): void {
  files(join(dir, "greet"), {
    "package.json":
      '{ "name": "toolhost-fixture-greet", "version": "1.0.0", "main": "index.js" }\n',
    "index.js": "module.exports = (n) => `hello ${n}`;\n",
  });
  const env = { ...process.env, HOME: home, npm_config_cache: join(home, ".npm") };
  const packed = execFileSync("npm", ["pack", "--silent"], {
    cwd: join(dir, "greet"),
    env,
    encoding: "utf8",
  })
    .trim().split("\n").at(-1)!;
  const tarball = join(dir, "greet", packed);
  execFileSync("npm", ["cache", "add", tarball], { env, stdio: "ignore" });
  const integrity = `sha512-${createHash("sha512").update(readFileSync(tarball)).digest("base64")}`;
  const dependencies = { "toolhost-fixture-greet": "1.0.0" };
  files(join(dir, "app"), {
    "package.json": JSON.stringify({
      name: "app",
      version: "1.0.0",
      private: true,
      dependencies,
      scripts: { test: "node --test" },
    }),
    "package-lock.json": JSON.stringify({
      name: "app",
      version: "1.0.0",
      lockfileVersion: 3,
      requires: true,
      packages: {
        "": { name: "app", version: "1.0.0", dependencies },
        "node_modules/toolhost-fixture-greet": {
          version: "1.0.0",
          resolved:
            "https://registry.npmjs.org/toolhost-fixture-greet/-/toolhost-fixture-greet-1.0.0.tgz",
          integrity,
        },
      },
    }),
    "greet.test.js":
      'const test = require("node:test");\nconst assert = require("node:assert");\n' +
      'test("greets", () => assert.equal(require("toolhost-fixture-greet")("app"), "hello app"));\n',
  });
}
