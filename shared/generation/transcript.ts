import type { CanonicalEvent, CanonicalPart, CanonicalResponse, StopReason } from '../protocols/canonical/types.js';

/** A streamed answer as content logging keeps it. */
export interface LoggedStream {
  stream: true;
  content: string;
  tool_calls?: { id: string; name: string; arguments: string }[];
  stop_reason?: StopReason;
}

/**
 * What a streamed answer said — its text, tool calls and stop reason — collected from the canonical
 * events of the upstream's stream, whatever the client's protocol: events a translated stream
 * decoded anyway, or those of a pass-through stream decoded once for this alone (stream-scanners.ts).
 * Content logging and the private protocol's stored results both read it. Made only for a call
 * that keeps its answer: the common stream collects nothing.
 */
export class Transcript {
  private id = '';
  private text = '';
  private readonly calls = new Map<number, { id: string; name: string; arguments: string }>();
  private stopReason: StopReason | undefined;

  event(event: CanonicalEvent): void {
    switch (event.type) {
      case 'start':
        this.id = event.id;
        break;
      case 'text':
        this.text += event.text;
        break;
      case 'tool_call_start':
        this.calls.set(event.index, { id: event.id, name: event.name, arguments: '' });
        break;
      case 'tool_call_args': {
        const call = this.calls.get(event.index);
        if (call) call.arguments += event.fragment;
        break;
      }
      case 'finish':
        this.stopReason = event.stopReason;
        break;
      default:
        break;
    }
  }

  /** The answer, once the stream said how it finished; undefined for a stream cut short. */
  response(model: string): CanonicalResponse | undefined {
    if (this.stopReason === undefined) return undefined;
    const parts: CanonicalPart[] = [];
    if (this.text) parts.push({ type: 'text', text: this.text });
    for (const call of this.calls.values())
      parts.push({ type: 'tool_call', id: call.id, name: call.name, arguments: call.arguments });
    return { id: this.id, model, parts, stopReason: this.stopReason, usage: undefined };
  }

  /** What content logging stores for the stream (the text also when it was cut short). */
  logged(): LoggedStream {
    const logged: LoggedStream = { stream: true, content: this.text };
    if (this.calls.size > 0) logged.tool_calls = [...this.calls.values()];
    if (this.stopReason !== undefined) logged.stop_reason = this.stopReason;
    return logged;
  }
}
