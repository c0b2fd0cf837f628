// How long a measured delete run may last: it deletes the plants that round's create run made, one id per request,
// and an id already deleted answers 404 (cheaper than a delete, so it would raise the figure). A target whose deletes
// run faster than its creates (the Express peer once warm: 5,781 deletes a second against 3,087 creates) ran out of
// plants within the run. So the run is shortened to what the plants last at the rate its warm-up just showed.

/** A tenth to spare: the measured run may go a little faster than the warm-up's last run. */
const SPARE = 1.1;

/**
 * Seconds of a delete run: `usual`, or fewer where `plants` would run out at `rate` deletes a second (whole seconds,
 * as wrk takes them; at least 1). Without a rate (no warm-up), `usual`.
 */
export function deleteSeconds(usual: number, plants: number, rate: number): number {
  if (!(rate > 0)) return usual;
  return Math.max(1, Math.min(usual, Math.floor(plants / (rate * SPARE))));
}
