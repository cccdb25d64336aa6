/**
 * The values the reference's examples share: moments (ISO 8601 and Unix seconds, as each surface
 * writes them), the gateway's origin, and the console's envelopes.
 */

/** A moment in the ISO 8601 form the console and the usage routes write. */
export const AT = '2026-01-31T12:00:00.000Z';
/** A quarter of an hour later: when a short-lived link or code runs out. */
export const LATER = '2026-01-31T12:15:00.000Z';
/** `AT` in Unix seconds, as the OpenAI-style objects write moments. */
export const UNIX = 1769860800;

export const ORIGIN = 'https://api.example.com';
/** A signed link of the gateway's to a stored file (`/v1/files/{token}`: no API key). */
export const SIGNED_LINK = `${ORIGIN}/v1/files/eyJrIjoidGFza3MvNmYxZTJk….ZHw3`;

/** The console's success envelope (docs/reference/console-api.md). */
export const one = (data: unknown, request_id: string) => ({ data, request_id });
/** The console's paginated envelope around one item. */
export const page = (item: unknown, request_id: string) => ({
  list: [item],
  total: 1,
  page: 1,
  page_size: 20,
  request_id,
});
