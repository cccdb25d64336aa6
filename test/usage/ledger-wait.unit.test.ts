// The settle step's wait for a task's usage record (shared/db/usage-records.ts usageRecordWritten):
// its looks stay close together, so a record the drain writes late is still seen within 50 ms — the
// task's end, and its webhook, wait no longer than that for the ledger (bench:webhooks).
import { describe, expect, it } from 'vitest';
import { LEDGER_LOOK_MAX_PAUSE_MS, nextLedgerLookPause } from '../../shared/db/usage-records.js';

describe('the looks for a usage record', () => {
  it('start 25 ms apart and never leave more than 50 ms between two, however long the wait', () => {
    const pauses: number[] = [];
    let pause = nextLedgerLookPause();
    for (let elapsed = 0; elapsed < 10_000; elapsed += pause, pause = nextLedgerLookPause(pause)) pauses.push(pause);
    expect(pauses.slice(0, 3)).toEqual([25, 50, 50]);
    expect(Math.max(...pauses)).toBe(LEDGER_LOOK_MAX_PAUSE_MS);
    expect(LEDGER_LOOK_MAX_PAUSE_MS).toBe(50);
  });
});
