import { argumentsObject, argumentsObjectLoose, untranslatable } from '../canonical/helpers.js';
import type {
  CanonicalPart,
  CanonicalRequest,
  CanonicalResponse,
  CanonicalUsage,
  StopReason,
} from '../canonical/types.js';

// The extras a generateContent upstream takes, by canonical name → its generationConfig field.
const EXTRAS: Record<string, string> = {
  topK: 'topK',
  presencePenalty: 'presencePenalty',
  frequencyPenalty: 'frequencyPenalty',
  seed: 'seed',
};

/**
 * The generateContent body for an upstream, from the canonical form. Image URLs must already be
 * inline (the handler fetches them: the Gemini API reads only its own file URIs).
 */
export function contentRequestFromCanonical(
  request: CanonicalRequest,
  _upstreamModel: string,
): Record<string, unknown> {
  const contents: { role: string; parts: Record<string, unknown>[] }[] = [];
  request.messages.forEach((message, i) => {
    const role = message.role === 'assistant' ? 'model' : 'user';
    const parts = message.parts.flatMap((p) => contentPart(p, i));
    if (parts.length === 0) return;
    const last = contents[contents.length - 1];
    if (last && last.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  });
  const body: Record<string, unknown> = { contents };
  if (request.system.length > 0) body.systemInstruction = { parts: [{ text: request.system.join('\n\n') }] };
  if (request.tools.length > 0) {
    body.tools = [
      {
        functionDeclarations: request.tools.map((t) => ({
          name: t.name,
          ...(t.description !== undefined && { description: t.description }),
          parametersJsonSchema: t.parameters,
        })),
      },
    ];
  }
  const choice = request.toolChoice;
  if (choice) {
    const config: Record<string, unknown> = {
      mode: choice.type === 'auto' ? 'AUTO' : choice.type === 'none' ? 'NONE' : 'ANY',
    };
    if (choice.type === 'tool') config.allowedFunctionNames = [choice.name];
    body.toolConfig = { functionCallingConfig: config };
  }
  if (request.serialTools) throw untranslatable(request.serialTools.field, 'gemini');
  const generation: Record<string, unknown> = {};
  if (request.maxTokens !== undefined) generation.maxOutputTokens = request.maxTokens;
  if (request.temperature !== undefined) generation.temperature = request.temperature;
  if (request.topP !== undefined) generation.topP = request.topP;
  if (request.stop.length > 0) generation.stopSequences = request.stop;
  const format = request.responseFormat;
  if (format) {
    generation.responseMimeType = 'application/json';
    if (format.type === 'json_schema') generation.responseJsonSchema = format.schema;
  }
  for (const key in request.extras) {
    const extra = request.extras[key]!;
    const name = EXTRAS[key];
    if (!name) throw untranslatable(extra.field, 'gemini');
    generation[name] = extra.value;
  }
  if (Object.keys(generation).length > 0) body.generationConfig = generation;
  return body;
}

function contentPart(part: CanonicalPart, index: number): Record<string, unknown>[] {
  switch (part.type) {
    case 'text':
      return part.text === '' ? [] : [{ text: part.text }];
    case 'image':
      if (part.source.kind === 'url') return [{ fileData: { mimeType: 'image/*', fileUri: part.source.url } }];
      return [{ inlineData: { mimeType: part.source.mediaType, data: part.source.data } }];
    case 'tool_call':
      return [
        {
          functionCall: {
            id: part.id,
            name: part.name,
            args: argumentsObject(part.arguments, `messages[${index}].tool_calls`),
          },
        },
      ];
    case 'tool_result': {
      // `response` must be an object: JSON-object text as it is, anything else under output / error.
      let response: Record<string, unknown> | undefined;
      try {
        const parsed: unknown = JSON.parse(part.content);
        if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) && !part.isError)
          response = parsed as Record<string, unknown>;
      } catch {
        // plain text
      }
      return [
        {
          functionResponse: {
            id: part.id,
            name: part.name,
            response: response ?? (part.isError ? { error: part.content } : { output: part.content }),
          },
        },
      ];
    }
  }
}

const FINISH: Record<StopReason, string> = {
  stop: 'STOP',
  length: 'MAX_TOKENS',
  tool_calls: 'STOP',
  content_filter: 'SAFETY',
};
export const contentFinishReason = (reason: StopReason): string => FINISH[reason];

export function contentUsage(usage: CanonicalUsage): Record<string, number> {
  const out: Record<string, number> = {
    promptTokenCount: usage.input,
    candidatesTokenCount: usage.output - usage.reasoning,
    totalTokenCount: usage.input + usage.output,
  };
  if (usage.cacheRead > 0) out.cachedContentTokenCount = usage.cacheRead;
  if (usage.reasoning > 0) out.thoughtsTokenCount = usage.reasoning;
  return out;
}

export function contentParts(parts: CanonicalPart[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const part of parts) {
    if (part.type === 'text') out.push({ text: part.text });
    else if (part.type === 'tool_call')
      out.push({ functionCall: { id: part.id, name: part.name, args: argumentsObjectLoose(part.arguments) } });
  }
  return out;
}

export function contentResponseFromCanonical(response: CanonicalResponse, model: string): unknown {
  const parts = contentParts(response.parts);
  return {
    candidates: [
      {
        content: { role: 'model', parts: parts.length > 0 ? parts : [{ text: '' }] },
        finishReason: FINISH[response.stopReason],
        index: 0,
      },
    ],
    usageMetadata: contentUsage(response.usage ?? { input: 0, cacheRead: 0, cacheWrite: 0, output: 0, reasoning: 0 }),
    modelVersion: model,
    responseId: response.id,
  };
}
