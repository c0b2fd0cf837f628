// Idempotency-Keys for creates: a random UUID per call. randomUUID needs a secure context in browsers; where it is
// missing, 16 random bytes from getRandomValues (available everywhere) in hex make a key as unguessable.

/** A fresh, random Idempotency-Key. */
export const newIdempotencyKey = (): string =>
  globalThis.crypto.randomUUID?.() ??
  Array.from(globalThis.crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, '0')).join(
    '',
  );
