// Counts tokens for `scripts/bench agents`: reads one JSON string per line on
// stdin and writes how many o200k_base tokens it holds, one number per line,
// in the same order. One process serves a whole run.
//
//   node bench/agents/tokens.mjs tests/e2e/package.json
//
// The argument is the package.json whose node_modules holds gpt-tokenizer.
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';

const require = createRequire(resolve(process.argv[2] ?? 'tests/e2e/package.json'));
const { countTokens } = require('gpt-tokenizer/encoding/o200k_base');

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  process.stdout.write(`${countTokens(JSON.parse(line))}\n`);
}
