// Waiting on the event itself instead of sleeping and hoping: polls a condition until it holds or time runs out.

/** Resolves once `condition()` is true (checked every `everyMs`); rejects naming `what` after `timeoutMs`. */
export async function waitFor(
  what: string,
  condition: () => boolean | Promise<boolean>,
  { timeoutMs = 20_000, everyMs = 10 }: { timeoutMs?: number; everyMs?: number } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
