import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { REDRIVEN_AT, ROW_BYTES, decodeRow, encodeRow, type DlqRow } from './dlq-rows';

const read = promisify(fs.read);

/** Appends are written out once this many bytes wait (and before any read). */
const FLUSH_BYTES = 1024 * 1024;
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

/**
 * One partition of the dead-letter topic on disk: a rows file (fixed-size rows in offset order)
 * and a values file (each dead letter as JSON). Append-only but for a row's redrive time, which
 * is written in place. Writes are buffered up to 1 MB and flushed before every read.
 */
export class PartitionFiles {
  private readonly rowsFd: number;
  private readonly valuesFd: number;
  private rowsWritten = 0;
  private valueBytesWritten = 0;
  private pendingRows: Buffer[] = [];
  private pendingValues: Buffer[] = [];
  private pendingValueBytes = 0;
  /** The highest offset appended, -1 before the first. */
  lastOffset = -1;

  constructor(dir: string, partition: number) {
    this.rowsFd = anonymousFile(dir, `dlq-rows-${partition}`);
    this.valuesFd = anonymousFile(dir, `dlq-values-${partition}`);
  }

  get rowCount(): number {
    return this.rowsWritten + this.pendingRows.length;
  }

  /** Appends a row for `value`, filling in where the value goes. */
  append(row: Omit<DlqRow, 'valuePos' | 'valueLength'>, value: Buffer): void {
    const valuePos = this.valueBytesWritten + this.pendingValueBytes;
    this.pendingRows.push(encodeRow({ ...row, valuePos, valueLength: value.length }));
    this.pendingValues.push(value);
    this.pendingValueBytes += value.length;
    this.lastOffset = row.offset;
    if (this.pendingValueBytes + this.pendingRows.length * ROW_BYTES >= FLUSH_BYTES) this.flush();
  }

  flush(): void {
    if (this.pendingRows.length === 0) return;
    const rows = Buffer.concat(this.pendingRows);
    const values = Buffer.concat(this.pendingValues);
    writeAll(this.valuesFd, values, this.valueBytesWritten);
    writeAll(this.rowsFd, rows, this.rowsWritten * ROW_BYTES);
    this.rowsWritten += this.pendingRows.length;
    this.valueBytesWritten += values.length;
    this.pendingRows = [];
    this.pendingValues = [];
    this.pendingValueBytes = 0;
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
   * first being row `first`). Rows appended during the scan are not visited.
   */
  async scan(visit: (buf: Buffer, count: number, first: number) => void): Promise<void> {
    this.flush();
    const total = this.rowsWritten;
    const buf = Buffer.alloc(Math.min(SCAN_ROWS, Math.max(total, 1)) * ROW_BYTES);
    for (let first = 0; first < total; first += SCAN_ROWS) {
      const count = Math.min(SCAN_ROWS, total - first);
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
