-- The protocol surface a call came in through (chat-completions, messages, generate-content): the
-- same model and endpoint are reachable from each, and reports can tell them apart.
ALTER TABLE usage_records ADD COLUMN IF NOT EXISTS surface text;
