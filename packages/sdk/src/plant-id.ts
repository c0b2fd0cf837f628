// Ids from text (a form field, a URL segment): exact int64, as a number while safe and a bigint beyond.
import { type PlantId, toInt64 } from '@plant-store/contract';

/**
 * The id written in `text` (surrounding spaces allowed), or undefined when it is not a signed 64-bit integer:
 * `parsePlantId('12')` is `12`, `parsePlantId('9223372036854775807')` is `9223372036854775807n`, and `'1.5'`, `'1e3'`,
 * `'0x10'`, `''` and anything beyond int64 are undefined. Never rounds, unlike `Number(text)`.
 */
export function parsePlantId(text: string): PlantId | undefined {
  return toInt64(text.trim(), true);
}
