/** Chat-completions messages with `text` in front of the system prompt (a system message added when there is none). */
export function prependSystemPrompt(
  messages: readonly Record<string, unknown>[],
  text: string,
): Record<string, unknown>[] {
  const [first, ...rest] = messages;
  if (first && (first.role === 'system' || first.role === 'developer')) {
    if (typeof first.content === 'string') return [{ ...first, content: `${text}\n\n${first.content}` }, ...rest];
    if (Array.isArray(first.content))
      return [{ ...first, content: [{ type: 'text', text }, ...first.content] }, ...rest];
  }
  return [{ role: 'system', content: text }, ...messages];
}
