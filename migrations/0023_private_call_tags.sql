-- A private chat call's cost tags (the key's and the request's `X-Service-Tags`), fixed when the call
-- is accepted: its job runs later, in a worker that never sees the request's headers. NULL on calls
-- accepted before this column existed (their job uses the key's tags).
ALTER TABLE private_calls ADD COLUMN IF NOT EXISTS tags text[];
