import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Api } from './api/client';
import type { User } from './api/models';
import type { SiteConfig } from './config';

/** What every page reads: the API client, the site setting, the signed-in user and their locale. */
export interface Console {
  api: Api;
  config: SiteConfig;
  user: User;
  /** The profile's locale, else the browser's. */
  locale: string;
  signOut(): Promise<void>;
  /** After a profile change: the new user (its locale reformats every page). */
  setUser(user: User): void;
}

export const ConsoleContext = createContext<Console | null>(null);

export function useConsole(): Console {
  const value = useContext(ConsoleContext);
  if (!value) throw new Error('useConsole outside a signed-in console');
  return value;
}
