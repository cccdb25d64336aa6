/**
 * Response examples of the console API's routes (`{data, request_id}`, or the paginated
 * `{list, total, page, page_size, request_id}`), shown in the reference beside api/routes/examples.ts.
 */

export const SESSION_TOKEN_RESPONSE = {
  data: { token: 'gwb_…a signed token for this session…', expires_at: '2026-01-31T12:15:00.000Z' },
  request_id: 'req_4b8c1e',
};
