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

/**
 * What `call` settles to (its value, or the error it rejects with), or the text `still pending after N ms` when it
 * has not settled by then: a call that must end by a deadline fails fast, saying it hung, instead of the test's timeout.
 */
export async function outcomeWithin(call: Promise<unknown>, timeoutMs: number): Promise<unknown> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const pending = new Promise((resolve) => {
    timer = setTimeout(() => resolve(`still pending after ${timeoutMs} ms`), timeoutMs);
  });
  try {
    return await Promise.race([call.catch((caught: unknown) => caught), pending]);
  } finally {
    clearTimeout(timer);
  }
}
