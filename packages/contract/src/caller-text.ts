// Text a caller chose (an unknown field's or parameter's name, a path), as error messages and `details` echo it: cut
// short with a marker, so that no answer, kept under an Idempotency-Key or not, grows with what the caller sent. The
// server and the testing kit cut alike. No Node or DOM APIs.

/** The most characters (code points) of caller-chosen text an error message repeats. */
export const CALLER_TEXT_MAX = 64;

/**
 * The text as an error message repeats it: whole when it has at most CALLER_TEXT_MAX characters, else its first
 * CALLER_TEXT_MAX and a marker saying how long it was (`...[cut: 15000 characters]`).
 */
export function callerText(text: string): string {
  if (text.length <= CALLER_TEXT_MAX) return text;
  // Code points, so a surrogate pair is never split.
  let head = '';
  let count = 0;
  for (const character of text) {
    if (count < CALLER_TEXT_MAX) head += character;
    count++;
  }
  return count <= CALLER_TEXT_MAX ? text : `${head}...[cut: ${count} characters]`;
}
