-- A call whose upstream delivered more than was reserved is charged the excess from the balance
-- (as far as it goes) and flagged, so operators can see which upstreams exceed the caps they are sent.
ALTER TABLE usage_records ADD COLUMN IF NOT EXISTS over_reservation boolean NOT NULL DEFAULT false;
