import type { ServerResponse } from 'node:http';
import type { ResolvedBehaviour } from './behaviour.js';
import type { ResponseClock } from './http-io.js';
import { MID_STREAM_ERROR_EVENT } from './openai-errors.js';
import { chunkEvent, DONE_EVENT, type CompletionPlan } from './openai-chat-response.js';
import { argumentFragments } from './chat-plan.js';

const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };

/**
 * Every event of the stream in order: role chunk, one chunk per token, finish, usage, [DONE]. With
 * `n` > 1 each step has one chunk per choice (its `index`), as OpenAI interleaves them.
 */
function streamEvents(plan: CompletionPlan, includeUsage: boolean, usageOnFinish: boolean): string[] {
  const each = (chunk: (index: number) => string) => Array.from({ length: plan.choices }, (_, index) => chunk(index));
  const events = each((index) =>
    chunkEvent(plan, { includeUsage, index, delta: { role: 'assistant', content: plan.toolCall ? null : '' } }),
  );
  const call = plan.toolCall;
  if (call) {
    events.push(
      ...each((index) =>
        chunkEvent(plan, {
          includeUsage,
          index,
          delta: {
            tool_calls: [{ index: 0, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }],
          },
        }),
      ),
    );
    for (const fragment of argumentFragments(call.arguments)) {
      events.push(
        ...each((index) =>
          chunkEvent(plan, {
            includeUsage,
            index,
            delta: { tool_calls: [{ index: 0, function: { arguments: fragment } }] },
          }),
        ),
      );
    }
  } else {
    for (const content of plan.chunks)
      events.push(...each((index) => chunkEvent(plan, { includeUsage, index, delta: { content } })));
  }
  const finishUsage = includeUsage && usageOnFinish ? plan.usage : undefined;
  events.push(
    ...each((index) =>
      chunkEvent(plan, {
        includeUsage,
        index,
        finishReason: plan.finishReason,
        usage: index === plan.choices - 1 ? finishUsage : undefined,
      }),
    ),
  );
  if (includeUsage && !usageOnFinish) {
    events.push(chunkEvent(plan, { includeUsage, usage: plan.usage, noChoices: true }));
  }
  events.push(DONE_EVENT);
  return events;
}

/** Index of the event the fault replaces: after the role chunk and faultAfterChunks content chunks. */
function faultIndex(plan: CompletionPlan, behaviour: ResolvedBehaviour): number {
  if (behaviour.fault !== 'disconnect' && behaviour.fault !== 'errorMidStream') return -1;
  return 1 + Math.min(behaviour.faultAfterChunks, plan.toolCall ? 1 : plan.completionTokens);
}

function injectFault(res: ServerResponse, fault: ResolvedBehaviour['fault']): void {
  if (fault === 'errorMidStream') {
    res.end(MID_STREAM_ERROR_EVENT);
    return;
  }
  // Node corks chunked writes until the next tick; destroying after it lets the client
  // receive the chunks written so far before the connection drops.
  setImmediate(() => res.destroy());
}

/** Writes each chunk as soon as it is due: all at once without chunkDelayMs, else one timer at a time. */
export function streamCompletion(
  res: ServerResponse,
  plan: CompletionPlan,
  behaviour: ResolvedBehaviour,
  includeUsage: boolean,
  clock: ResponseClock,
): void {
  const events = streamEvents(plan, includeUsage, behaviour.usageInLastChoiceChunk);
  const faultAt = faultIndex(plan, behaviour);
  // stallBeforeEnd: every content chunk, then nothing (no finish, usage or [DONE]) until the client leaves.
  const stallAt = behaviour.fault === 'stallBeforeEnd' ? events.findIndex((e) => e.includes('"finish_reason":"')) : -1;
  let next = 0;
  const writeDue = (): void => {
    while (next < events.length && !res.destroyed) {
      if (next === faultAt) return injectFault(res, behaviour.fault);
      if (next === stallAt) return;
      res.write(events[next++]);
      if (behaviour.chunkDelayMs > 0 && next < events.length) return clock.after(behaviour.chunkDelayMs, writeDue);
    }
    res.end();
  };
  res.writeHead(200, SSE_HEADERS);
  writeDue();
}
