import { render } from 'preact';
import { createApi } from './api/client';
import { App } from './app';
import { loadConfig } from './config';
import './styles.css';

const root = document.getElementById('app')!;
loadConfig().then(
  (config) => render(<App config={config} api={createApi(config.api_base)} />, root),
  (err: unknown) => {
    root.textContent = `The console could not load its settings (config.json): ${String(err)}`;
  },
);
