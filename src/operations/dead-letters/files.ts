import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { ConfigError, errorMessage } from '../../core/errors';
import { REDRIVEN_AT, ROW_BYTES, decodeRow, writeRow, type DlqRow } from './rows';

const read = promisify(fs.read);

/** Appends wait in buffers of this size (one for rows, one for values), written out when full and before any read. */
const BUFFER_BYTES = 1024 * 1024;
/** Rows read per step of a scan: 1 MB. */
const SCAN_ROWS = Math.floor((1024 * 1024) / ROW_BYTES);

/**
 * Opens a file for reading and writing and unlinks it at once: it lives as long as the process
 * holds it, so a crash (kill -9 included) leaves nothing behind, and two processes never share one.
 */
function anonymousFile(dir: string, name: string): number {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}-${process.pid}-${Math.random().toString(36).slice(2)}`);
  const fd = fs.openSync(file, 'w+', 0o600);
  fs.unlinkSync(file);
  return fd;
}

/** Fails with a ConfigError naming HOOKLINE_DLQ_INDEX_DIR when no file can be made in `dir`. */
export function checkIndexDir(dir: string): void {
  try {
    fs.closeSync(anonymousFile(dir, 'dlq-probe'));
  } catch (err) {
    throw new ConfigError(
      'HOOKLINE_DLQ_INDEX_DIR',
      `cannot create the dead-letter index's files: ${errorMessage(err)}`,
    );
  }
}

/**
 * One partition of the dead-letter topic on disk: a rows file (fixed-size rows in offset order)
 * and a values file (each dead letter as JSON). Append-only but for a row's redrive time, which
 * is written in place. Appends are copied into two 1 MB buffers, written out when one is full and
 * before every read: indexing allocates nothing per dead letter here.
 */
export class PartitionFiles {
  private readonly rowsFd: number;
  private readonly valuesFd: number;
  private rowsWritten = 0;
  private valueBytesWritten = 0;
  private readonly pendingRows = Buffer.allocUnsafe(BUFFER_BYTES - (BUFFER_BYTES % ROW_BYTES));
  private pendingRowCount = 0;
  private readonly pendingValues = Buffer.allocUnsafe(BUFFER_BYTES);
  private pendingValueBytes = 0;
  /** The highest offset appended, -1 before the first. */
  lastOffset = -1;

  constructor(dir: string, partition: number) {
    this.rowsFd = anonymousFile(dir, `dlq-rows-${partition}`);
    this.valuesFd = anonymousFile(dir, `dlq-values-${partition}`);
  }

  get rowCount(): number {
    return this.rowsWritten + this.pendingRowCount;
  }

  /** Appends a row for `value` (JSON text), filling in where the value goes. */
  append(row: Omit<DlqRow, 'valuePos' | 'valueLength'>, value: string): void {
    const valueLength = Buffer.byteLength(value);
    const rowsFull = (this.pendingRowCount + 1) * ROW_BYTES > this.pendingRows.length;
    if (rowsFull || this.pendingValueBytes + valueLength > this.pendingValues.length) this.flush();
    const valuePos = this.valueBytesWritten + this.pendingValueBytes;
    if (valueLength > this.pendingValues.length) {
      writeAll(this.valuesFd, Buffer.from(value), valuePos);
      this.valueBytesWritten += valueLength;
    } else {
      this.pendingValues.write(value, this.pendingValueBytes);
      this.pendingValueBytes += valueLength;
    }
    writeRow(this.pendingRows, this.pendingRowCount * ROW_BYTES, { ...row, valuePos, valueLength });
    this.pendingRowCount++;
    this.lastOffset = row.offset;
  }

  flush(): void {
    if (this.pendingValueBytes > 0) {
      writeAll(this.valuesFd, this.pendingValues.subarray(0, this.pendingValueBytes), this.valueBytesWritten);
      this.valueBytesWritten += this.pendingValueBytes;
      this.pendingValueBytes = 0;
    }
    if (this.pendingRowCount > 0) {
      const rows = this.pendingRows.subarray(0, this.pendingRowCount * ROW_BYTES);
      writeAll(this.rowsFd, rows, this.rowsWritten * ROW_BYTES);
      this.rowsWritten += this.pendingRowCount;
      this.pendingRowCount = 0;
    }
  }

  /** The row number of the dead letter at `offset` (rows are in offset order), -1 if none. */
  findRow(offset: number): number {
    this.flush();
    const buf = Buffer.alloc(8);
    let low = 0;
    let high = this.rowsWritten - 1;
    while (low <= high) {
      const mid = (low + high) >> 1;
      fs.readSync(this.rowsFd, buf, 0, 8, mid * ROW_BYTES);
      const found = buf.readDoubleLE(0);
      if (found === offset) return mid;
      if (found < offset) low = mid + 1;
      else high = mid - 1;
    }
    return -1;
  }

  rowAt(index: number): DlqRow {
    this.flush();
    const buf = Buffer.alloc(ROW_BYTES);
    fs.readSync(this.rowsFd, buf, 0, ROW_BYTES, index * ROW_BYTES);
    return decodeRow(buf);
  }

  setRedrivenAt(index: number, atMs: number): void {
    this.flush();
    const buf = Buffer.alloc(8);
    buf.writeDoubleLE(atMs, 0);
    writeAll(this.rowsFd, buf, index * ROW_BYTES + REDRIVEN_AT);
  }

  /**
   * Hands every row there is now to `visit`, a chunk at a time (`buf` holds `count` rows, the
   * first being row `first`), the newest chunk first: a listing that keeps the newest page then
   * fills it at once and passes over older rows cheaply. Rows appended meanwhile are not visited.
   */
  async scan(visit: (buf: Buffer, count: number, first: number) => void): Promise<void> {
    this.flush();
    const total = this.rowsWritten;
    const buf = Buffer.alloc(Math.min(SCAN_ROWS, Math.max(total, 1)) * ROW_BYTES);
    for (let end = total; end > 0; end -= SCAN_ROWS) {
      const first = Math.max(0, end - SCAN_ROWS);
      const count = end - first;
      await readAll(this.rowsFd, buf, count * ROW_BYTES, first * ROW_BYTES);
      visit(buf, count, first);
    }
  }

  async value(row: Pick<DlqRow, 'valuePos' | 'valueLength'>): Promise<Buffer> {
    this.flush();
    const buf = Buffer.alloc(row.valueLength);
    await readAll(this.valuesFd, buf, row.valueLength, row.valuePos);
    return buf;
  }

  close(): void {
    fs.closeSync(this.rowsFd);
    fs.closeSync(this.valuesFd);
  }
}

function writeAll(fd: number, buf: Buffer, position: number): void {
  let done = 0;
  while (done < buf.length) done += fs.writeSync(fd, buf, done, buf.length - done, position + done);
}

async function readAll(fd: number, buf: Buffer, length: number, position: number): Promise<void> {
  let done = 0;
  while (done < length) {
    const { bytesRead } = await read(fd, buf, done, length - done, position + done);
    if (bytesRead === 0) throw new Error(`dead-letter index file ends early at ${position + done}`);
    done += bytesRead;
  }
}
