// Bytes a cache keeps, in an allocation of their own. `Buffer.from` (of a string, or of bytes to copy) and the pg
// driver's bytea parser hand out a slice of a shared pool buffer for anything under half `Buffer.poolSize` (32 KB on
// Node 24: every page of plants, every token's hash), and a slice kept in a cache keeps that whole 64 KB buffer alive,
// far more than a cache bounded in its values' own bytes counts. Under the mixed workload PostgreSQL's page cache held
// 81 MB of buffers beside its 12 MB bound, and the process's RSS grew from 163 to 229 MB in 40 s.

/** `data`'s bytes (a string's as UTF-8) in a buffer of exactly their length that shares its memory with nothing. */
export function ownBytes(data: string | Uint8Array): Buffer {
  if (typeof data === 'string') {
    const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(data));
    bytes.write(data);
    return bytes;
  }
  const bytes = Buffer.allocUnsafeSlow(data.byteLength);
  bytes.set(data);
  return bytes;
}
