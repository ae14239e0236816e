/**
 * The ranking by graph, as aider's repo map ranks: files are nodes, and a file that uses a name
 * points at every file that defines it, weighted by how telling the name is (a long camelCase or
 * snake_case name ten times, a `_private` one or one defined in more than five files a tenth) and
 * by the square root of its uses; PageRank over that graph, personalised by the files in play
 * (their edges count fifty times, and the walk restarts at them); a definition ranks by the share
 * of rank its name brings in. Computed name by name, never edge by edge: a name used in 5,000
 * files and defined in 500 is 5,500 terms per round, not 2,500,000 edges.
 */
import { WORDS } from "../outlines/mod.ts";
import type { TimeSlice } from "../time_slice.ts";
import type { Definitions } from "./_scores.ts";

const DAMPING = 0.85;
const MAX_ROUNDS = 100;
/** Converged when the ranks moved less than this per file, in sum. */
const TOLERANCE = 1e-6;
/** What a file in play's uses weigh, against one's elsewhere. */
const IN_PLAY = 50;
/** A definition no file uses points at its own file, this much. */
const UNUSED = 0.1;
/** What such a definition scores, as a share of its file's rank. */
const UNUSED_SHARE = 1e-6;

/** How much one use of `word` tells, by the word alone (defined in more than five files: a tenth). */
function telling(word: string, definers: number): number {
  let weight = 1;
  const snake = word.includes("_") && /[A-Za-z]/.test(word);
  const camel = /[A-Z]/.test(word) && /[a-z]/.test(word);
  if ((snake || camel) && word.length >= 8) weight *= 10;
  if (word.startsWith("_")) weight *= 0.1;
  if (definers > 5) weight *= 0.1;
  return weight;
}

/**
 * Each definition's score by the graph of `definitions`' files; the definitions of the files in
 * `inPlay` (indices in `files`) score -1, so that the map leaves them out.
 */
export async function scoresByGraph(
  definitions: Definitions,
  inPlay: ReadonlySet<number>,
  slice: TimeSlice,
): Promise<Float64Array> {
  const { files, file, word } = definitions;
  const fileCount = files.length;
  // Names that some file defines, numbered from 0, and the files defining each.
  const local = new Map<number, number>();
  const definerLists: number[][] = [];
  for (let i = 0; i < file.length; i++) {
    if (word[i] < 0) continue;
    let w = local.get(word[i]);
    if (w === undefined) {
      w = definerLists.length;
      local.set(word[i], w);
      definerLists.push([]);
    }
    const list = definerLists[w];
    if (list[list.length - 1] !== file[i]) list.push(file[i]);
  }
  const weightOf = new Float64Array(definerLists.length);
  for (const [id, w] of local) weightOf[w] = telling(WORDS.word(id), definerLists[w].length);

  // The uses, flat: which file, which name, what weight.
  const useFile: number[] = [];
  const useWord: number[] = [];
  const useWeight: number[] = [];
  const outWeight = new Float64Array(fileCount);
  const usedAtAll = new Uint8Array(definerLists.length);
  for (const [f, outline] of files.entries()) {
    const boost = inPlay.has(f) ? IN_PLAY : 1;
    for (let k = 0; k < outline.words.length; k++) {
      const w = local.get(outline.words[k]);
      if (w === undefined) continue;
      const weight = weightOf[w] * boost * Math.sqrt(outline.counts[k]);
      useFile.push(f);
      useWord.push(w);
      useWeight.push(weight);
      outWeight[f] += weight * definerLists[w].length;
      usedAtAll[w] = 1;
    }
    if (slice.due()) await slice.pause();
  }
  // A file's definitions no one uses point at itself (aider's self edges).
  const selfWeight = new Float64Array(fileCount);
  for (let i = 0; i < file.length; i++) {
    const w = word[i] < 0 ? undefined : local.get(word[i]);
    if (w === undefined || !usedAtAll[w]) selfWeight[file[i]] += UNUSED;
  }
  for (let f = 0; f < fileCount; f++) outWeight[f] += selfWeight[f];

  // Where the walk restarts, and where a file pointing nowhere sends its rank.
  const restart = new Float64Array(fileCount);
  if (inPlay.size > 0) { for (const f of inPlay) restart[f] = 1 / inPlay.size; }
  else restart.fill(fileCount > 0 ? 1 / fileCount : 0);

  let rank = Float64Array.from(restart);
  const flow = new Float64Array(definerLists.length);
  const uses = useFile.length;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    flow.fill(0);
    for (let u = 0; u < uses; u++) {
      const f = useFile[u];
      flow[useWord[u]] += (rank[f] * useWeight[u]) / outWeight[f];
      if ((u & 0xffff) === 0xffff && slice.due()) await slice.pause();
    }
    let dangling = 0;
    for (let f = 0; f < fileCount; f++) if (outWeight[f] === 0) dangling += rank[f];
    const next = new Float64Array(fileCount);
    for (let w = 0; w < definerLists.length; w++) {
      if (flow[w] === 0) continue;
      for (const d of definerLists[w]) next[d] += flow[w];
    }
    let moved = 0;
    for (let f = 0; f < fileCount; f++) {
      const self = outWeight[f] > 0 ? (rank[f] * selfWeight[f]) / outWeight[f] : 0;
      next[f] = DAMPING * (next[f] + self + dangling * restart[f]) + (1 - DAMPING) * restart[f];
      moved += Math.abs(next[f] - rank[f]);
    }
    rank = next;
    if (slice.due()) await slice.pause();
    if (moved < fileCount * TOLERANCE) break;
  }

  // The same flow once more with the final ranks: what each name brings to its definers.
  flow.fill(0);
  for (let u = 0; u < uses; u++) {
    const f = useFile[u];
    flow[useWord[u]] += (rank[f] * useWeight[u]) / outWeight[f];
  }
  const scores = new Float64Array(file.length);
  for (let i = 0; i < file.length; i++) {
    const f = file[i];
    if (inPlay.has(f)) {
      scores[i] = -1;
      continue;
    }
    const w = word[i] < 0 ? undefined : local.get(word[i]);
    // A name no file uses comes after every used one, by its file's rank (aider gives it its
    // file's self edge's share, which is the whole rank of a file that uses nothing else).
    scores[i] = w !== undefined && usedAtAll[w] ? flow[w] : rank[f] * UNUSED_SHARE;
  }
  return scores;
}
