// Deterministic token accounting, so tests can predict usage exactly without a tokenizer.

const PER_MESSAGE_TOKENS = 3;
const PER_REQUEST_TOKENS = 3;

/** The same set of characters as the regex class \s, checked without allocating. */
function isWhitespace(code: number): boolean {
  return (
    code === 32 ||
    (code >= 9 && code <= 13) ||
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

export function countWords(text: string): number {
  let words = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const space = isWhitespace(text.charCodeAt(i));
    if (!space && !inWord) words++;
    inWord = !space;
  }
  return words;
}

/** Text of a message content: a string, or the text parts of an array joined by a space. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const texts: string[] = [];
  for (const part of content) {
    const text: unknown = typeof part === 'object' && part !== null ? (part as { text?: unknown }).text : undefined;
    if (typeof text === 'string') texts.push(text);
  }
  return texts.join(' ');
}

function contentOf(message: unknown): unknown {
  return typeof message === 'object' && message !== null ? (message as { content?: unknown }).content : undefined;
}

/** 3 per message plus its words, plus 3 for the request. */
export function countPromptTokens(messages: readonly unknown[]): number {
  let tokens = PER_REQUEST_TOKENS;
  for (const message of messages) tokens += PER_MESSAGE_TOKENS + countWords(contentText(contentOf(message)));
  return tokens;
}

/** Text of the last message with role "user" ('' if none): where sim directives are read. */
export function lastUserText(messages: readonly unknown[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (typeof message === 'object' && message !== null && (message as { role?: unknown }).role === 'user') {
      return contentText(contentOf(message));
    }
  }
  return '';
}

/** The i-th generated token, counting from 1. */
export function generatedToken(i: number): string {
  return `tok${i} `;
}

export function generatedText(tokens: number): string {
  let text = '';
  for (let i = 1; i <= tokens; i++) text += generatedToken(i);
  return text;
}
