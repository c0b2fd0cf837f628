// What a deployment sends is shown, never obeyed: C0, DEL and C1 control characters (a terminal clears the screen,
// sets the window title or moves the cursor on them; XML 1.0 cannot hold most of them) are written as \uXXXX text.

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/gu;

/** `text` with every control character as `\uXXXX`, but those in `keep` (the line breaks of a report's own text). */
export function escapeControls(text: string, keep = ''): string {
  return text.replace(CONTROLS, (char) =>
    keep.includes(char) ? char : `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
