/**
 * A generated HTML page of about a given size for the web benchmark: site chrome (header,
 * navigation, sidebar, footer) around one long article of sections with headings, paragraphs
 * with links and inline markup, lists, tables and code blocks. Deterministic, so runs compare.
 */

const WORDS = ("lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor " +
  "incididunt ut labore et dolore magna aliqua enim ad minim veniam quis nostrud exercitation " +
  "ullamco laboris nisi aliquip ex ea commodo consequat").split(" ");

function words(seed: number, count: number): string {
  const out: string[] = [];
  for (let i = 0; i < count; i++) out.push(WORDS[(seed * 7 + i * 13) % WORDS.length]);
  return out.join(" ");
}

function section(n: number): string {
  const paragraphs = Array.from(
    { length: 4 },
    (_, p) =>
      `<p>${words(n + p, 30)} <a href="/docs/${n}/${p}">${words(p, 3)}</a> ` +
      `<em>${words(n, 2)}</em> and <code>value_${p}</code> ${words(n * p, 25)}.</p>`,
  );
  const list = `<ul>${
    Array.from({ length: 5 }, (_, i) => `<li>${words(n + i, 8)} <strong>${i}</strong></li>`)
      .join("")
  }</ul>`;
  const table = `<table><thead><tr><th>Name</th><th>Size</th><th>Note</th></tr></thead><tbody>${
    Array.from({ length: 4 }, (_, r) =>
      `<tr><td>row ${r}</td><td>${r * n}</td><td>${words(r, 4)}</td></tr>`)
      .join("")
  }</tbody></table>`;
  // Highlighted code, as documentation sites serve it: a span per token.
  const lines = Array.from(
    { length: 8 },
    (_, l) =>
      `<span class="line"><span class="kw">const</span> <span class="id">x${l}</span> ` +
      `<span class="op">=</span> <span class="num">${n * l}</span>;</span>`,
  );
  const code = `<div class="highlight"><pre><code class="language-ts">${
    lines.join("\n")
  }\n</code></pre></div>`;
  return `<section><h2 id="s${n}">Section ${n}: ${words(n, 4)}</h2>${paragraphs.join("")}` +
    `${list}${table}${code}</section>`;
}

/**
 * A page of at most `bytes` characters of HTML (all ASCII, so bytes and characters agree),
 * short of it by less than one section.
 */
export function generatedPage(bytes: number): string {
  const nav = `<nav><ul>${
    Array.from({ length: 30 }, (_, i) => `<li><a href="/nav/${i}">Menu ${i}</a></li>`).join("")
  }</ul></nav>`;
  const head = `<!DOCTYPE html><html><head><meta charset="utf-8"><title>A generated page | ` +
    `Bench site</title><style>body{font-family:sans-serif}</style></head><body>` +
    `<header><a href="/">Bench site</a>${nav}</header><main><article><h1>A generated page</h1>`;
  const tail =
    `</article></main><aside><h3>Related</h3><ul>${
      Array.from({ length: 10 }, (_, i) => `<li><a href="/related/${i}">Related ${i}</a></li>`)
        .join("")
    }</ul></aside><footer><p>Copyright, privacy, terms.</p></footer>` +
    `<script>console.log("analytics")</script></body></html>`;
  const parts: string[] = [head];
  let size = head.length + tail.length;
  for (let n = 0;; n++) {
    const s = section(n);
    if (size + s.length > bytes) break;
    parts.push(s);
    size += s.length;
  }
  parts.push(tail);
  return parts.join("");
}
