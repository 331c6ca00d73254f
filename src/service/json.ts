/** Deeper than any body of the interface (a ResourceSpec is about eight levels deep). */
const MAX_JSON_DEPTH = 64;

/**
 * JSON.parse for text from outside: a document nested deeper than `maxDepth` is refused before parsing, so a
 * hostile body cannot exhaust the stack in the parser, in zod or in JSON.stringify. Throws SyntaxError.
 */
export function parseJson(text: string, maxDepth = MAX_JSON_DEPTH): unknown {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > maxDepth) throw new SyntaxError(`nested deeper than ${maxDepth} levels`);
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return JSON.parse(text);
}
