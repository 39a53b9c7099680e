/**
 * UTF-16 hygiene for text that leaves the process: a lone surrogate cannot be encoded as UTF-8
 * (`encodeURIComponent` throws on one, `TextEncoder` silently replaces it), so answers are made
 * well-formed before they are stored, sent or streamed.
 */

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** `text` with every unpaired surrogate replaced by U+FFFD (what `String#toWellFormed` does). */
export function toWellFormed(text: string): string {
  return text.replace(LONE_SURROGATE, '\uFFFD');
}

function endsWithHighSurrogate(text: string): boolean {
  const last = text.charCodeAt(text.length - 1);
  return last >= 0xd800 && last <= 0xdbff;
}

/**
 * Joins stream deltas cut anywhere, even between the two halves of one code point: a delta that
 * ends in a high surrogate keeps it back until the next delta shows whether its low half follows.
 * The concatenation of everything `push` and `end` return is `toWellFormed(all deltas joined)`.
 */
export class SurrogateJoiner {
  private held = '';

  /** The part of `delta` that can be sent now (possibly ''). */
  push(delta: string): string {
    const text = this.held + delta;
    if (text !== '' && endsWithHighSurrogate(text)) {
      this.held = text.slice(-1);
      return toWellFormed(text.slice(0, -1));
    }
    this.held = '';
    return toWellFormed(text);
  }

  /** What is still held at the end of the stream: a lone high surrogate becomes U+FFFD. */
  end(): string {
    const rest = this.held;
    this.held = '';
    return toWellFormed(rest);
  }
}
