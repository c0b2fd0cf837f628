// Ids from text (a form field, a URL segment): exact int64, as a number while safe and a bigint beyond.
import type { PlantId } from '@plant-store/contract';
import { PLANT_STORE_LIMITS } from './limits.js';

const INTEGER_TEXT = /^-?(?:0|[1-9]\d*)$/;

/**
 * The id written in `text` (surrounding spaces allowed), or undefined when it is not a signed 64-bit integer:
 * `parsePlantId('12')` is `12`, `parsePlantId('9223372036854775807')` is `9223372036854775807n`, and `'1.5'`, `'1e3'`,
 * `'0x10'`, `''` and anything beyond int64 are undefined. Never rounds, unlike `Number(text)`.
 */
export function parsePlantId(text: string): PlantId | undefined {
  const trimmed = text.trim();
  if (!INTEGER_TEXT.test(trimmed)) return undefined;
  const exact = BigInt(trimmed);
  if (exact < PLANT_STORE_LIMITS.id.minimum || exact > PLANT_STORE_LIMITS.id.maximum) return undefined;
  const asNumber = Number(exact);
  return Number.isSafeInteger(asNumber) ? asNumber : exact;
}
