// docs/benchmarks.md is two things: the tables of the latest `pnpm bench` run, which each run writes anew, and the
// notes and earlier runs people wrote below them (the method, quiet-machine runs, what was tried), which no run may
// wipe. A marker line divides them: a run replaces what is above it and keeps it and everything below.
import { existsSync, readFileSync } from 'node:fs';

export const NOTES_MARKER = '<!-- pnpm bench writes the tables above this line and keeps everything below it -->';

/** The file's new text: `report` above the marker, then the marker and the notes of `previous` (if it has any). */
export function withKeptNotes(report: string, previous: string | undefined): string {
  const at = previous?.indexOf(NOTES_MARKER) ?? -1;
  const notes = at >= 0 && previous ? previous.slice(at) : `${NOTES_MARKER}\n`;
  return `${report.trimEnd()}\n\n${notes}`;
}

/** The current text of `path`, or undefined where there is none. */
export function readIfPresent(path: string): string | undefined {
  return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
}
