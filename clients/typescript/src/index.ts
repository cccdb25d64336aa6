export { Gateway, type GatewayOptions } from './client.js';
export {
  APIConnectionError,
  AuthenticationError,
  GatewayError,
  InsufficientFundsError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  StreamInterruptedError,
  UploadError,
  UpstreamError,
  WaitTimeoutError,
  type UploadStage,
} from './errors.js';
export { reference, type Asset } from './resources/assets.js';
export {
  ChatStream,
  type ChatChunk,
  type ChatCompletion,
  type ChatCreateParams,
  type CallHeaders,
} from './resources/chat.js';
export type { CreatedVideo, VideoCreateParams, VideoTask } from './resources/videos.js';
export type { PrivateCallParams, PrivateResult } from './resources/private.js';
export type { RetryOptions } from './transport.js';
export {
  verifyWebhook,
  WebhookVerificationError,
  type VerifyWebhookOptions,
  type WebhookEvent,
  type WebhookHeaders,
} from './webhooks.js';
export { VERSION } from './transport.js';
