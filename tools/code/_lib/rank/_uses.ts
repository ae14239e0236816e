/**
 * The ranking by uses: a definition counts the other files that use its name, shared among the
 * definitions of that name, a tenth for a name defined in more than five places or shorter than
 * four characters, half for a member. With files in play, a name they use counts fifty times,
 * and their own definitions are left out (score -1).
 */
import { type Definitions, leafName } from "./_scores.ts";
import { usesOf } from "../outlines/mod.ts";
import type { TimeSlice } from "../time_slice.ts";

const IN_PLAY = 50;

export async function scoresByUses(
  definitions: Definitions,
  inPlay: ReadonlySet<number>,
  slice: TimeSlice,
): Promise<Float64Array> {
  const { files, file, symbol, word, refs, namesakes } = definitions;
  const playing = [...inPlay].map((f) => files[f]);
  const scores = new Float64Array(file.length);
  for (let i = 0; i < file.length; i++) {
    if (inPlay.has(file[i])) {
      scores[i] = -1;
      continue;
    }
    const definition = files[file[i]].symbols[symbol[i]];
    const name = leafName(definition.name);
    // As aider weighs them: a name defined in many places, or a very short one, says little.
    const telling = (namesakes[i] > 5 ? 0.1 : 1) * (name.length < 4 ? 0.1 : 1);
    scores[i] = (refs[i] / namesakes[i]) * telling * (definition.member ? 0.5 : 1);
    if (word[i] >= 0 && playing.some((p) => usesOf(p.words, p.counts, word[i]) > 0)) {
      scores[i] *= IN_PLAY;
    }
    if ((i & 1023) === 0 && slice.due()) await slice.pause();
  }
  return scores;
}
