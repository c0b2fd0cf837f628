// A stored page's JSON as text (pages are UTF-8 bytes), and a page built from text, for tests that read or make pages.
import type { PlantPage } from '@plant-store/core';

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** The page's JSON text. */
export const pageText = (page: { body: Uint8Array } | Uint8Array | string): string =>
  typeof page === 'string' ? page : decoder.decode(page instanceof Uint8Array ? page : page.body);

/** A page whose JSON is `json`. */
export const pageOf = (json: string, rest: Omit<PlantPage, 'body'>): PlantPage => ({
  body: encoder.encode(json),
  ...rest,
});

/** The page with its JSON as text (`json`) in place of its bytes, for comparing whole pages. */
export const withText = ({ body, ...rest }: PlantPage) => ({ json: decoder.decode(body), ...rest });
