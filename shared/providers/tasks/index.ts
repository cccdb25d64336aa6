import type { Protocol } from '../../catalog/schema.js';
import { contentTasks } from '../content-tasks/index.js';
import { openAiVideos } from '../openai-videos/index.js';
import type { TaskProvider } from './task-provider.js';

const TASK_PROVIDERS: Partial<Record<Protocol, TaskProvider>> = {
  'content-tasks': contentTasks,
  'openai-videos': openAiVideos,
};

export function taskProviderFor(protocol: Protocol): TaskProvider {
  const provider = TASK_PROVIDERS[protocol];
  if (!provider) throw new Error(`protocol ${protocol} does not run tasks`);
  return provider;
}

export function runsTasks(protocol: Protocol): boolean {
  return TASK_PROVIDERS[protocol] !== undefined;
}
