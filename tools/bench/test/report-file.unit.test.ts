// A bench run rewrites the tables of docs/benchmarks.md and keeps the notes and earlier runs below the marker.
import { describe, expect, it } from 'vitest';
import { NOTES_MARKER, withKeptNotes } from '../src/report-file.js';

describe('docs/benchmarks.md: the run above, the notes kept', () => {
  it('replaces what is above the marker and keeps the marker and everything below it', () => {
    const previous = `# Benchmarks\n\nold tables\n\n${NOTES_MARKER}\n\n## How a run works\n\nnotes\n`;
    expect(withKeptNotes('# Benchmarks\n\nnew tables\n', previous)).toBe(
      `# Benchmarks\n\nnew tables\n\n${NOTES_MARKER}\n\n## How a run works\n\nnotes\n`,
    );
  });

  it('starts the notes with the marker alone where the file has none or is missing', () => {
    expect(withKeptNotes('# Benchmarks\n', undefined)).toBe(`# Benchmarks\n\n${NOTES_MARKER}\n`);
    expect(withKeptNotes('# Benchmarks\n', '# Benchmarks\n\nno marker\n')).toBe(`# Benchmarks\n\n${NOTES_MARKER}\n`);
  });
});
