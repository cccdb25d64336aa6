import { CHAT_COMPLETION } from './text.js';

/**
 * The private protocol's envelope, `{code: 0, message: "success", data}`
 * (docs/reference/private-protocol.md).
 */

const success = (data: unknown) => ({ code: 0, message: 'success', data });

export const PRIVATE_CALL_EXAMPLES = {
  request: {
    apiKey: 'ak-your-private-protocol-key',
    clientRequestId: 'order-1042',
    model: 'gpt-4o-mini',
    input: { messages: [{ role: 'user', content: 'Say hello.' }] },
  },
  // A chat call's `result` is the chat completion itself.
  response: success({
    task_id: 'pcall_2b7e9c41mx530i2furzrxw',
    client_request_id: 'order-1042',
    status: 'succeeded',
    result: CHAT_COMPLETION,
  }),
};

/** getResult answers the call's `data`, as `call` does. */
export const PRIVATE_LOOKUP_EXAMPLES = {
  request: { apiKey: 'ak-your-private-protocol-key', clientRequestId: 'order-1042' },
  response: PRIVATE_CALL_EXAMPLES.response,
};

/** A video or image call not finished upstream (a chat call, or one finished, answers 409). */
export const PRIVATE_CANCEL_EXAMPLES = {
  request: { apiKey: 'ak-your-private-protocol-key', clientRequestId: 'clip-7' },
  response: success({ task_id: 'video_mx530i16HW3uAxEJRVVFEAmE', client_request_id: 'clip-7', status: 'cancelled' }),
};
