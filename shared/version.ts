import { readFileSync } from 'node:fs';
import { projectPath } from './paths.js';

/** The gateway's release, from package.json (read once). */
export const GATEWAY_VERSION: string = (
  JSON.parse(readFileSync(projectPath('package.json'), 'utf8')) as { version: string }
).version;
