import { z } from 'zod';

const PRINTABLE_ASCII = /^[\x21-\x7e](?:[\x20-\x7e]{0,253}[\x21-\x7e])?$/;
const clientRequestId = z
  .string({ error: 'required string' })
  .regex(PRINTABLE_ASCII, '1-255 printable ASCII characters');
const id = z.string().min(1).max(255);

/** `POST /server/v1/call`. `apiKey` is read (and checked) before this schema runs. */
export const privateCallSchema = z.object({
  apiKey: z.unknown(),
  clientRequestId,
  model: z.string({ error: 'required string' }).min(1),
  stream: z.boolean().optional(),
  /**
   * Chat calls under `standard_v1` only: answer the call's state after this many ms if it has not
   * ended (an early answer; without it, and always under `legacy_v1`, the whole answer however long
   * the upstream takes). Task calls: how long to wait for the task's end (default 0). At most 120 s.
   */
  wait_ms: z.number().int().min(0).max(120_000).optional(),
  input: z.record(z.string(), z.unknown(), { error: 'required object: the body of the standard call' }),
});

/** `POST /server/v1/getResult` and `/cancel`: the call by `clientRequestId` or by `taskId`. */
export const privateLookupSchema = z
  .object({ apiKey: z.unknown(), clientRequestId: clientRequestId.optional(), taskId: id.optional() })
  .refine((b) => b.clientRequestId !== undefined || b.taskId !== undefined, {
    message: 'clientRequestId or taskId is required',
    path: ['clientRequestId'],
  });

export type PrivateCallRequest = z.infer<typeof privateCallSchema>;
