// The SQLite store's change log: each owner's last CHANGES_KEPT plant changes (the write's effect, and the plant's
// id), by the owner's version each one made, written in the write's own transaction. Another process on the same
// file (`serve --workers N`) hears of a commit as a row of the change feed (sqlite-store.ts) naming the owner and its
// new version; with the log it replays the owner's changes over its cached pages (pageChangedBy, as it does for its
// own writes) instead of forgetting every page of an owner another process wrote to. Without it, two workers on the
// mixed workload answered 5% of lists from the cache where one worker answered 59%, and spent more CPU per request
// than one (the figures: docs/performance.md and the report it links).
import type Database from 'better-sqlite3';
import type { PageCache } from '../cache/page-cache.js';
import { EFFECT_CODES, effectOfCode, type PlantChange, type WriteEffect } from '../cache/write-effect.js';
import type { PlantPage } from '../store.js';

/** Changes kept per owner; a process further behind on an owner than this forgets that owner's pages, as before. */
export const CHANGES_KEPT = 32n;

export interface ChangeLog {
  /** Inside the write that moved the owner's version to `version`: records what it changed. */
  record(owner: string, version: string, effect: WriteEffect, id: bigint): void;
  /**
   * Brings the owner's cached pages up to `version`, a version of the owner's that was committed (PageCache.replay):
   * a page that no change since its own version can have altered is kept (with that version), every other older page
   * is forgotten, and so is any page whose changes are no longer all in the log (or were made by a writer that logs
   * none). Reads nothing when no cached page of the owner is older.
   */
  catchUp(pages: PageCache<PlantPage>, owner: string, version: bigint): void;
}

interface ChangeRow {
  version: bigint;
  id: bigint;
  created: bigint;
}

/** A log entry as the page cache replays it. */
export const toPlantChange = ({ version, id, created }: ChangeRow): PlantChange => ({
  effect: effectOfCode(created),
  id,
  version,
});

/**
 * The join condition that finds the log's entry (alias `c`) for version `version` of owner `owner` (SQL expressions),
 * where the log still holds it: entries sit in slots by version, so a later one may have taken its slot.
 */
export const logEntryOf = (owner: string, version: string) =>
  `c.owner = ${owner} AND c.slot = ${version} % ${CHANGES_KEPT} AND c.version = ${version}`;

export function createChangeLog(statement: (sql: string) => Database.Statement): ChangeLog {
  return {
    record(owner, version, effect, id) {
      statement(
        `INSERT INTO plant_changes (owner, slot, version, id, created) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (owner, slot) DO UPDATE SET version = excluded.version, id = excluded.id, created = excluded.created`,
      ).run(owner, BigInt(version) % CHANGES_KEPT, BigInt(version), id, EFFECT_CODES[effect]);
    },
    catchUp(pages, owner, version) {
      const oldest = pages.oldestVersion(owner);
      if (oldest === undefined || oldest >= version) return;
      const rows = statement(
        // `owner = +?`: a bare parameter there made SQLite compile the statement again at every run (see the page's
        // statement in sqlite-store.ts); 14 us a run with it, 5 without.
        'SELECT version, id, created FROM plant_changes WHERE owner = +? AND version > ? AND version <= ? ORDER BY version',
      )
        .safeIntegers(true)
        .all(owner, oldest, version) as ChangeRow[];
      pages.replay(owner, rows.map(toPlantChange), version);
    },
  };
}
