import { stemmer } from 'stemmer';

/**
 * The stem a word is matched by: its Porter stem once British spellings are written the American
 * way, so "colour" meets "color" and "organisation" meets "organization". Both the question and
 * the passages go through it, so a word rewritten that is not a British spelling ("premise") only
 * meets itself.
 */
export function stemOf(word: string): string {
  return stemmer(word.length >= 6 ? word.replace(BRITISH_OUR, 'or$1').replace(BRITISH_ISE, 'z$1') : word);
}

/** "colour", "colours", "coloured", "favourite", "honourable": -our before an ending or none. */
const BRITISH_OUR = /(?<=[a-z]{2})our(s|ed|ing|ite|ites|able|ful)?$/;
/** "organise", "organised", "organisation", "analyse": -ise / -yse where American has -ize / -yze. */
const BRITISH_ISE = /(?<=[a-z]{3}[iy])s(e|es|ed|ing|ation|ations)$/;
