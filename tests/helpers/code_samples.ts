/**
 * A small source file per tier-1 language, each with a decorated (annotated, attributed) and
 * doc-commented member, what its outline holds, and what the symbol edits must leave: shared by
 * the unit tests (tests/code/) and the e2e tests (tests/e2e/code_test.ts).
 */

export interface CodeSample {
  file: string;
  text: string;
  /** Some of the outline's entries, as "kind namePath". */
  outline: string[];
  /** The decorated, doc-commented member the edits aim at. */
  member: string;
  /** Its decorations and doc comment as they stand: replace_definition without them keeps them. */
  kept: string[];
  /** A new definition for it without decorations, written at column 0. */
  definition: string;
  /** What the file holds after replace_definition with `definition`. */
  afterDefinition: string;
  /** A new body for it and a line that must then be in the file. */
  body: string;
  bodyLine: string;
  /** A definition to insert after it, and the text that joins them (the blank-line spacing). */
  insert: string;
  joined: string;
  /** A body that does not parse. */
  broken: string;
}

export const SAMPLES: CodeSample[] = [
  {
    file: "service.py",
    text: `import functools


def helper(x):
    return x


class Service:
    """A service."""

    # Cached size.
    @functools.cache
    @staticmethod
    def size(n):
        return n

    def grow(self, n):
        return n + 1
`,
    outline: ["function helper", "class Service", "method Service/size", "method Service/grow"],
    member: "Service/size",
    kept: ["    # Cached size.\n    @functools.cache\n    @staticmethod\n"],
    definition: "def size(n):\n    return n * 2\n",
    afterDefinition: `import functools


def helper(x):
    return x


class Service:
    """A service."""

    # Cached size.
    @functools.cache
    @staticmethod
    def size(n):
        return n * 2

    def grow(self, n):
        return n + 1
`,
    body: "total = n * 3\nreturn total",
    bodyLine: "        total = n * 3\n        return total\n",
    insert: "def shrink(self, n):\n    return n - 1",
    joined: "        return n\n\n    def shrink(self, n):\n        return n - 1\n\n    def grow",
    broken: "return (n",
  },
  {
    file: "widget.ts",
    text: `/** A widget. */
@Component({ selector: "w" })
export class Widget {
  /** Renders it. */
  @HostListener("click")
  render(): string {
    return "w";
  }

  other(): number {
    return 1;
  }
}
`,
    outline: ["class Widget", "method Widget/render", "method Widget/other"],
    member: "Widget/render",
    kept: ['  /** Renders it. */\n  @HostListener("click")\n'],
    definition: 'render(): string {\n  return "v";\n}',
    afterDefinition: `/** A widget. */
@Component({ selector: "w" })
export class Widget {
  /** Renders it. */
  @HostListener("click")
  render(): string {
    return "v";
  }

  other(): number {
    return 1;
  }
}
`,
    body: 'const s = "x";\nreturn s;',
    bodyLine: '    const s = "x";\n    return s;\n  }',
    insert: "hide(): void {}",
    joined: '    return "w";\n  }\n\n  hide(): void {}\n\n  other()',
    broken: "return (;",
  },
  {
    file: "Greeter.java",
    text: `package p;

/** A greeter. */
@Service
public class Greeter {
    /** Says hello. */
    @Override
    @Deprecated
    public String toString() {
        return "hi";
    }

    int count() {
        return 1;
    }
}
`,
    outline: ["class Greeter", "method Greeter/toString", "method Greeter/count"],
    member: "Greeter/toString",
    kept: ["    /** Says hello. */\n    @Override\n    @Deprecated\n"],
    definition: 'public String toString() {\n    return "hello";\n}',
    afterDefinition: `package p;

/** A greeter. */
@Service
public class Greeter {
    /** Says hello. */
    @Override
    @Deprecated
    public String toString() {
        return "hello";
    }

    int count() {
        return 1;
    }
}
`,
    body: 'String s = "x";\nreturn s;',
    bodyLine: '        String s = "x";\n        return s;\n    }',
    insert: "int zero() {\n    return 0;\n}",
    joined:
      '        return "hi";\n    }\n\n    int zero() {\n        return 0;\n    }\n\n    int count()',
    broken: "return (;",
  },
  {
    file: "point.rs",
    text: `/// A point.
#[derive(Debug, Clone)]
pub struct Point {
    x: i32,
}

impl Point {
    /// The x.
    #[inline]
    #[must_use]
    pub fn x(&self) -> i32 {
        self.x
    }

    pub fn y(&self) -> i32 {
        0
    }
}
`,
    outline: ["struct Point", "impl Point", "method Point/x", "method Point/y"],
    member: "Point/x",
    kept: ["    /// The x.\n    #[inline]\n    #[must_use]\n"],
    definition: "pub fn x(&self) -> i32 {\n    self.x * 2\n}",
    afterDefinition: `/// A point.
#[derive(Debug, Clone)]
pub struct Point {
    x: i32,
}

impl Point {
    /// The x.
    #[inline]
    #[must_use]
    pub fn x(&self) -> i32 {
        self.x * 2
    }

    pub fn y(&self) -> i32 {
        0
    }
}
`,
    body: "let v = self.x;\nv",
    bodyLine: "        let v = self.x;\n        v\n    }",
    insert: "pub fn z(&self) -> i32 {\n    1\n}",
    joined:
      "        self.x\n    }\n\n    pub fn z(&self) -> i32 {\n        1\n    }\n\n    pub fn y",
    broken: "let v = (;",
  },
  {
    file: "shape.hpp",
    text: `namespace geo {

/// A shape.
class Shape {
 public:
  /// The area.
  [[nodiscard]] double area() const {
    return 0.0;
  }

  int sides() const { return 0; }
};

}  // namespace geo
`,
    outline: [
      "namespace geo",
      "class geo/Shape",
      "method geo/Shape/area",
      "method geo/Shape/sides",
    ],
    member: "Shape/area",
    kept: ["  /// The area.\n  [[nodiscard]] "],
    definition: "double area() const {\n  return 1.0;\n}",
    afterDefinition: `namespace geo {

/// A shape.
class Shape {
 public:
  /// The area.
  [[nodiscard]] double area() const {
    return 1.0;
  }

  int sides() const { return 0; }
};

}  // namespace geo
`,
    body: "double a = 2.0;\nreturn a;",
    bodyLine: "    double a = 2.0;\n    return a;\n  }",
    insert: "int corners() const { return 0; }",
    joined: "    return 0.0;\n  }\n\n  int corners() const { return 0; }\n\n  int sides()",
    broken: "return (;",
  },
  {
    file: "square.go",
    text: `package shapes

// Area returns the area.
func (s *Square) Area() int {
	return s.side * s.side
}

// Square is a square.
type Square struct {
	side int
}
`,
    outline: ["method Square/Area", "struct Square"],
    member: "Square/Area",
    kept: ["// Area returns the area.\n"],
    definition: "func (s *Square) Area() int {\n\treturn s.side * 2\n}",
    afterDefinition: `package shapes

// Area returns the area.
func (s *Square) Area() int {
	return s.side * 2
}

// Square is a square.
type Square struct {
	side int
}
`,
    body: "a := s.side\nreturn a",
    bodyLine: "\ta := s.side\n\treturn a\n}",
    insert: "func (s *Square) Sides() int {\n\treturn 4\n}",
    joined:
      "\treturn s.side * s.side\n}\n\nfunc (s *Square) Sides() int {\n\treturn 4\n}\n\n// Square",
    broken: "return (",
  },
  {
    file: "math.c",
    text: `/* Adds two numbers. */
static int add(int a, int b) {
    return a + b;
}

int sub(int a, int b) {
    return a - b;
}
`,
    outline: ["function add", "function sub"],
    member: "add",
    kept: ["/* Adds two numbers. */\n"],
    definition: "static int add(int a, int b) {\n    return b + a;\n}",
    afterDefinition: `/* Adds two numbers. */
static int add(int a, int b) {
    return b + a;
}

int sub(int a, int b) {
    return a - b;
}
`,
    body: "int c = a + b;\nreturn c;",
    bodyLine: "    int c = a + b;\n    return c;\n}",
    insert: "int mul(int a, int b) {\n    return a * b;\n}",
    joined: "    return a + b;\n}\n\nint mul(int a, int b) {\n    return a * b;\n}\n\nint sub",
    broken: "return (;",
  },
  {
    file: "home.php",
    text: `<?php

/** A controller. */
#[Controller]
class Home {
    /** Index. */
    #[Route("/")]
    public function index() {
        return 1;
    }
}
`,
    outline: ["class Home", "method Home/index"],
    member: "Home/index",
    kept: ['    /** Index. */\n    #[Route("/")]\n'],
    definition: "public function index() {\n    return 2;\n}",
    afterDefinition: `<?php

/** A controller. */
#[Controller]
class Home {
    /** Index. */
    #[Route("/")]
    public function index() {
        return 2;
    }
}
`,
    body: "$a = 3;\nreturn $a;",
    bodyLine: "        $a = 3;\n        return $a;\n    }",
    insert: "public function show() {\n    return 0;\n}",
    joined: "        return 1;\n    }\n\n    public function show() {\n        return 0;\n    }\n}",
    broken: "return (;",
  },
  {
    file: "counter.js",
    text: `/** Adds. */
export function add(a, b) {
  return a + b;
}

export class Counter {
  increment() {
    this.n++;
  }
}
`,
    outline: ["function add", "class Counter", "method Counter/increment"],
    member: "add",
    kept: ["/** Adds. */\n"],
    definition: "export function add(a, b) {\n  return b + a;\n}",
    afterDefinition: `/** Adds. */
export function add(a, b) {
  return b + a;
}

export class Counter {
  increment() {
    this.n++;
  }
}
`,
    body: "const c = a + b;\nreturn c;",
    bodyLine: "  const c = a + b;\n  return c;\n}",
    insert: "export function sub(a, b) {\n  return a - b;\n}",
    joined: "  return a + b;\n}\n\nexport function sub(a, b) {\n  return a - b;\n}\n\nexport class",
    broken: "return (;",
  },
  {
    file: "app.tsx",
    text: `/** The app. */
export function App(): JSX.Element {
  return <div>hi</div>;
}
`,
    outline: ["function App"],
    member: "App",
    kept: ["/** The app. */\n"],
    definition: "export function App(): JSX.Element {\n  return <p>hello</p>;\n}",
    afterDefinition: `/** The app. */
export function App(): JSX.Element {
  return <p>hello</p>;
}
`,
    body: "return <span>x</span>;",
    bodyLine: "  return <span>x</span>;\n}",
    insert: "export function Footer(): JSX.Element {\n  return <footer />;\n}",
    joined: "  return <div>hi</div>;\n}\n\nexport function Footer(): JSX.Element {",
    broken: "return <div>;",
  },
];
