import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { open, type Database } from 'lmdb';
import { ConfigError, errorMessage } from '../core/errors';
import type { UserState } from './user-state';
import type { UserDisk } from './user-states';

/** LMDB refuses keys over 1,978 bytes; longer user keys are stored under their hash. */
const MAX_KEY_BYTES = 1_024;
const HASHED = '\u0000sha256:';

/** The key a user's state is stored under: the user key itself, or its hash when too long. */
export function diskKey(key: string): string {
  if (Buffer.byteLength(key) <= MAX_KEY_BYTES) return key;
  return HASHED + createHash('sha256').update(key).digest('hex');
}

/** A stored value: the state, or `[key, state]` under a hashed key (the key is not recoverable). */
type Stored = UserState | [string, UserState];

export function toStored(key: string, state: UserState): Stored {
  return diskKey(key) === key ? state : [key, state];
}

export function fromStored(storedKey: string, value: Stored): [string, UserState] {
  return Array.isArray(value) ? value : [storedKey, value];
}

/**
 * One partition's user states in an LMDB file of its own under `dir`, unlinked as soon as it is
 * opened (like the dead-letter index's files): it lives as long as the process holds it, so a
 * crash (kill -9 included) leaves nothing behind, no two owners ever share one, and a partition
 * opened again starts from an empty file. Writes are not synced: the file is a cache of the state
 * topic, never read after a restart.
 */
export class LmdbUserDisk implements UserDisk {
  private constructor(private readonly db: Database<Stored, string>) {}

  static open(dir: string, partition: number): LmdbUserDisk {
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(
      dir,
      `audience-state-${partition}-${process.pid}-${Math.random().toString(36).slice(2)}.mdb`,
    );
    const db = open<Stored, string>({
      path: file,
      noSubdir: true,
      noSync: true,
      noMemInit: true,
      compression: false,
      cache: false,
      overlappingSync: false,
    });
    try {
      fs.unlinkSync(file);
      fs.unlinkSync(`${file}-lock`);
    } catch (err) {
      void db.close();
      throw err;
    }
    return new LmdbUserDisk(db);
  }

  get(key: string): UserState | undefined {
    const k = diskKey(key);
    const value = this.db.get(k);
    return value === undefined ? undefined : fromStored(k, value)[1];
  }

  has(key: string): boolean {
    return this.db.doesExist(diskKey(key));
  }

  write(changes: Map<string, UserState | null>): void {
    this.db.transactionSync(() => {
      for (const [key, state] of changes) {
        if (state) void this.db.put(diskKey(key), toStored(key, state));
        else void this.db.remove(diskKey(key));
      }
    });
  }

  page(after: string | undefined, limit: number): Array<[string, UserState]> {
    const start = after === undefined ? undefined : diskKey(after);
    const out: Array<[string, UserState]> = [];
    for (const { key, value } of this.db.getRange({ start, limit: limit + 1 })) {
      if (key === start) continue;
      if (out.length === limit) break;
      out.push(fromStored(key, value));
    }
    return out;
  }

  close(): void {
    void this.db.close();
  }
}

/** Fails with a ConfigError naming HOOKLINE_AUDIENCE_STATE_DIR when no store can be made in `dir`. */
export function checkStateDir(dir: string): void {
  try {
    LmdbUserDisk.open(dir, -1).close();
  } catch (err) {
    throw new ConfigError(
      'HOOKLINE_AUDIENCE_STATE_DIR',
      `cannot create the audience state store: ${errorMessage(err)}`,
    );
  }
}
