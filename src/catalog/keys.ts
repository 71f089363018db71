import { createHash, randomBytes } from 'node:crypto';

/** 12 random bytes = 96 bits: unguessable and collision-free at any catalog size. */
const ID_BYTES = 12;
/** 32 random bytes = 256 bits of entropy. */
const WRITE_KEY_BYTES = 32;
/** Characters of the write key kept in the catalog to tell keys apart (36 of its 256 bits). */
export const WRITE_KEY_PREFIX_CHARS = 6;

export const SOURCE_ID_PREFIX = 'src_';
export const DESTINATION_ID_PREFIX = 'dst_';

export function newSourceId(): string {
  return SOURCE_ID_PREFIX + randomBytes(ID_BYTES).toString('hex');
}

export function newDestinationId(): string {
  return DESTINATION_ID_PREFIX + randomBytes(ID_BYTES).toString('hex');
}

/** A new write key (base64url, 43 characters). Shown once; only its hash is stored. */
export function newWriteKey(): string {
  return randomBytes(WRITE_KEY_BYTES).toString('base64url');
}

/** SHA-256 (hex) of a write key, as stored in the catalog and looked up at ingest. */
export function hashWriteKey(writeKey: string): string {
  return createHash('sha256').update(writeKey, 'utf8').digest('hex');
}

export function writeKeyPrefix(writeKey: string): string {
  return writeKey.slice(0, WRITE_KEY_PREFIX_CHARS);
}
