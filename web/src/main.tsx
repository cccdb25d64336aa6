import { render } from 'preact';
import { BearerSession } from './api/bearer';
import { createApi } from './api/client';
import { App } from './app';
import { loadConfig } from './config';
import './styles/index.css';

const root = document.getElementById('app')!;
loadConfig().then(
  (config) => {
    const bearer = config.session === 'bearer' ? new BearerSession(config.api_base) : undefined;
    render(<App config={config} api={createApi(config.api_base, bearer)} />, root);
  },
  (err: unknown) => {
    root.textContent = `The console could not load its settings (config.json): ${String(err)}`;
  },
);
