// The test token (TestUsdc.sol) compiled with the pinned solc-js (0.8.30, optimizer, 200 runs):
// `{ abi, bytecode }` (bytecode as `0x…` hex), for lab.mjs and vectors.mjs.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import solc from "solc";

export function compileToken() {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const source = fs.readFileSync(path.join(here, "TestUsdc.sol"), "utf8");
  const compiled = JSON.parse(solc.compile(JSON.stringify({
    language: "Solidity",
    sources: { "TestUsdc.sol": { content: source } },
    settings: { optimizer: { enabled: true, runs: 200 }, outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } } },
  })));
  const errors = (compiled.errors ?? []).filter((e) => e.severity === "error");
  if (errors.length) throw new Error(errors.map((e) => e.formattedMessage).join("\n"));
  const { abi, evm } = compiled.contracts["TestUsdc.sol"].TestUsdc;
  return { abi, bytecode: `0x${evm.bytecode.object}` };
}
