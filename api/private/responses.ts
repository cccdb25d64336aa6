import { z } from 'zod';

/**
 * The private protocol's success envelope around a call's state: its `result` once it succeeded —
 * a chat call's completion as the upstream answered it, a task call's task — or its `error`
 * (docs/reference/private-protocol.md).
 */
export const privateCallAnswer = z.strictObject({
  code: z.literal(0),
  message: z.literal('success'),
  data: z.strictObject({
    task_id: z.string(),
    client_request_id: z.string(),
    status: z.enum(['queued', 'running', 'succeeded', 'failed', 'cancelled', 'expired']),
    result: z.unknown().optional(),
    error: z.strictObject({ code: z.string(), message: z.string() }).optional(),
  }),
});
