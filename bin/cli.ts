#!/usr/bin/env node
import { runCli } from '../shared/cli/run.js';

process.exitCode = await runCli(process.argv.slice(2), process.env);
