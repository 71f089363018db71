import type { UserState } from '../../../src/audiences/user-state';
import {
  CachedUserStates,
  type CachedUserStatesOptions,
  type UserDisk,
} from '../../../src/audiences/user-states';

/** A UserDisk in memory that copies what it stores, as a real one decodes a new object per read. */
export class MemoryDisk implements UserDisk {
  readonly stored = new Map<string, UserState>();
  reads = 0;
  writes = 0;
  closed = false;

  get(key: string): UserState | undefined {
    this.reads++;
    const state = this.stored.get(key);
    return state && structuredClone(state);
  }

  has(key: string): boolean {
    return this.stored.has(key);
  }

  write(changes: Map<string, UserState | null>): void {
    this.writes++;
    for (const [key, state] of changes) {
      if (state) this.stored.set(key, structuredClone(state));
      else this.stored.delete(key);
    }
  }

  page(after: string | undefined, limit: number): Array<[string, UserState]> {
    const keys = [...this.stored.keys()].sort().filter((k) => after === undefined || k > after);
    return keys.slice(0, limit).map((k) => [k, structuredClone(this.stored.get(k)!)]);
  }

  close(): void {
    this.closed = true;
  }
}

export function memoryDiskStates(options: Omit<CachedUserStatesOptions, 'disk'>): CachedUserStates {
  return new CachedUserStates({ disk: new MemoryDisk(), ...options });
}
