-- The W3C trace context ({traceparent, tracestate?}) of the request that created a task, a batch or a
-- private call, and of the request whose task or batch an event announces: a job enqueued again from
-- Postgres (the reconciler, the Redis-loss watcher, the webhook sweep) links to that request as the
-- lost job did (docs/reference/operations.md, "Traces"). Null while tracing is off, and on older rows.
ALTER TABLE tasks ADD COLUMN IF NOT EXISTS trace_context jsonb;
ALTER TABLE batches ADD COLUMN IF NOT EXISTS trace_context jsonb;
ALTER TABLE private_calls ADD COLUMN IF NOT EXISTS trace_context jsonb;
ALTER TABLE webhook_events ADD COLUMN IF NOT EXISTS trace_context jsonb;
