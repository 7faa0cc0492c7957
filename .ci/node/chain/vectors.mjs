// Makes core/tests/chain_vectors.json again: real JSON-RPC answers of the test token on anvil,
// for the scripted chain node of core/tests/sim.rs. Starts anvil (chain id 8453, genesis at
// S = 1899999900, the simulation's SIM_UNIX_START) on a free loopback port, places the test token
// at the Base USDC address as lab.mjs does, builds the scenario below block by block (each
// block's timestamp set with evm_setNextBlockTimestamp), then prints the file on standard output:
// every block, the token's logs, both receipts, and the eth_getLogs / eth_call answers the
// simulation replays, each exactly as anvil gave it. Loopback only; anvil stops with the script.
//
//   block 1 (S+1)   anvil key #1 deploys the token (its runtime code is then set at the USDC
//                   address with anvil_setCode)
//   block 2 (S+2)   mint of 1 USDC to the payer (anvil key #0, the simulation's TEST_PAYER_KEY)
//   block 3 (S+95)  empty
//   block 4 (S+96)  anvil key #2 sends transferWithAuthorization(v, r, s) of paid_post(&sim, 103):
//                   10 000 units to 0x7099…79C8, validAfter 0, validBefore S+100, nonce 0x…67
//   block 5 (S+97)  the payer's cancelAuthorization(…, signature) of paid_post(&sim, 104)'s
//                   nonce 0x…68
//   block 6 (S+130) empty: the head
//
// Usage (from .ci/node, after `npm install`):
//   node chain/vectors.mjs > ../../core/tests/chain_vectors.json
import { spawn, execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath } from "node:url";
import { compileToken } from "./token.mjs";
import { createWalletClient, http, defineChain, encodeFunctionData, parseSignature, pad, toHex, keccak256, toBytes } from "viem";
import { privateKeyToAccount } from "viem/accounts";

const S = 1899999900;
const USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";
const PAY_TO = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
// anvil's well-known development keys: #0 pays, #1 deploys, #2 sends the transfer.
const PAYER = privateKeyToAccount("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");
const DEPLOYER = privateKeyToAccount("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d");
const SENDER = privateKeyToAccount("0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a");
const DOMAIN = { name: "USD Coin", version: "2", chainId: 8453, verifyingContract: USDC };

const here = path.dirname(fileURLToPath(import.meta.url));
const anvilBin = path.join(here, "..", "node_modules", ".bin", "anvil");
const anvilArgs = ["--host", "127.0.0.1", "--port", "0", "--chain-id", "8453", "--timestamp", String(S)];

// The token (token.mjs), as lab.mjs compiles it.
const { abi, bytecode } = compileToken();

// anvil on a free port: its address from the line "Listening on 127.0.0.1:PORT".
const anvil = spawn(anvilBin, anvilArgs, { stdio: ["ignore", "pipe", "inherit"] });
process.on("exit", () => anvil.kill());
const url = await new Promise((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error("anvil did not listen within 30 s")), 30_000);
  readline.createInterface({ input: anvil.stdout }).on("line", (line) => {
    if (line.startsWith("Listening on ")) {
      clearTimeout(timer);
      resolve(`http://${line.slice("Listening on ".length).trim()}`);
    }
  });
});

// One JSON-RPC call; the `result` as anvil sent it.
let id = 0;
async function rpc(method, params) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params }),
  });
  const answer = await response.json();
  if (answer.error) throw new Error(`${method}: ${JSON.stringify(answer.error)}`);
  return answer.result;
}

const chain = defineChain({ id: 8453, name: "anvil-base", nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, rpcUrls: { default: { http: [url] } } });
const wallet = (account) => createWalletClient({ account, chain, transport: http(url) });

// The next transaction (automine) or `evm_mine` makes a block stamped `timestamp`.
const at = (timestamp) => rpc("evm_setNextBlockTimestamp", [timestamp]);
const nonceOf = (n) => pad(toHex(n), { size: 32 });

await at(S + 1);
const deployHash = await wallet(DEPLOYER).deployContract({ abi, bytecode });
const deployed = await rpc("eth_getTransactionReceipt", [deployHash]);
await rpc("anvil_setCode", [USDC, await rpc("eth_getCode", [deployed.contractAddress, "latest"])]);
await at(S + 2);
await wallet(DEPLOYER).writeContract({ address: USDC, abi, functionName: "mint", args: [PAYER.address, 1_000_000n] });
await at(S + 95);
await rpc("evm_mine", []);

// Block 4: the transfer of paid_post(&sim, 103), as the simulation signs it (RFC 6979 makes the
// signature the same bytes).
const authorization = { from: PAYER.address, to: PAY_TO, value: 10_000n, validAfter: 0n, validBefore: BigInt(S + 100), nonce: nonceOf(103) };
const signed = parseSignature(await PAYER.signTypedData({
  domain: DOMAIN,
  types: { TransferWithAuthorization: [
    { name: "from", type: "address" }, { name: "to", type: "address" }, { name: "value", type: "uint256" },
    { name: "validAfter", type: "uint256" }, { name: "validBefore", type: "uint256" }, { name: "nonce", type: "bytes32" },
  ] },
  primaryType: "TransferWithAuthorization",
  message: authorization,
}));
await at(S + 96);
const transfer = await wallet(SENDER).writeContract({
  address: USDC, abi, functionName: "transferWithAuthorization",
  args: [authorization.from, authorization.to, authorization.value, authorization.validAfter, authorization.validBefore, authorization.nonce, Number(signed.v), signed.r, signed.s],
});

// Block 5: the payer cancels paid_post(&sim, 104)'s nonce (the 65-byte signature form).
const cancelSignature = await PAYER.signTypedData({
  domain: DOMAIN,
  types: { CancelAuthorization: [{ name: "authorizer", type: "address" }, { name: "nonce", type: "bytes32" }] },
  primaryType: "CancelAuthorization",
  message: { authorizer: PAYER.address, nonce: nonceOf(104) },
});
await at(S + 97);
const cancel = await wallet(PAYER).sendTransaction({
  to: USDC,
  data: encodeFunctionData({ abi, functionName: "cancelAuthorization", args: [PAYER.address, nonceOf(104), cancelSignature] }),
});
await at(S + 130);
await rpc("evm_mine", []);

// The reads the simulation replays.
const token = USDC.toLowerCase();
const topic = (signature) => keccak256(toBytes(signature));
const authorizationTopics = [topic("AuthorizationUsed(address,bytes32)"), topic("AuthorizationCanceled(address,bytes32)")];
const payer = pad(PAYER.address.toLowerCase(), { size: 32 });
const logsOf = (nonce, toBlock) => [{ address: token, topics: [authorizationTopics, payer, nonceOf(nonce)], fromBlock: "0x0", toBlock }];
const stateOf = (nonce, block) => [{ to: token, data: encodeFunctionData({ abi, functionName: "authorizationState", args: [PAYER.address, nonceOf(nonce)] }) }, block];

const head = Number(await rpc("eth_blockNumber", []));
const blocks = [];
for (let n = 0; n <= head; n++) blocks.push(await rpc("eth_getBlockByNumber", [toHex(n), false]));
const answered = async (method, queries) => {
  const out = [];
  for (const params of queries) out.push({ params, result: await rpc(method, params) });
  return out;
};
// "anvil Version: 1.7.1, commit 4072e487…" from its `--version` lines.
const versionLines = execFileSync(anvilBin, ["--version"], { encoding: "utf8" }).split("\n");
const commit = versionLines.find((line) => line.startsWith("Commit SHA: "))?.slice("Commit SHA: ".length).trim();
const version = `${versionLines[0].trim()}, commit ${commit}`;

const pinned = JSON.parse(fs.readFileSync(path.join(here, "..", "package.json"), "utf8")).dependencies;

const vectors = {
  produced_by: {
    what: "Real JSON-RPC answers of the test token on anvil, for the scripted chain node of core/tests/sim.rs. Regenerate rather than edit.",
    anvil: `${version} (@foundry-rs/anvil ${pinned["@foundry-rs/anvil"]}, .ci/node/package.json)`,
    token: ".ci/node/chain/TestUsdc.sol, compiled with solc-js 0.8.30 (optimizer, 200 runs), deployed by anvil key #1 and its runtime code set at the Base USDC address with anvil_setCode, as .ci/node/chain/lab.mjs does",
    command: `cd .ci/node && node chain/vectors.mjs > ../../core/tests/chain_vectors.json (${["anvil", ...anvilArgs].join(" ")}; viem ${pinned.viem}): each block's timestamp set with evm_setNextBlockTimestamp / evm_mine, then every block (eth_getBlockByNumber N false), all the token's logs (eth_getLogs from 0x0), both receipts, and a few eth_getLogs / eth_call answers as anvil gave them`,
    scenario: "genesis at SIM_UNIX_START (1899999900 = S). Block 1 (S+1) deploys; block 2 (S+2) mints 1 USDC to the payer 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266 (anvil key #0 = TEST_PAYER_KEY); block 3 (S+95) is empty; block 4 (S+96) holds transferWithAuthorization of paid_post(&sim, 103) (nonce 0x..67, 10000 units to 0x70997970C51812dc3A010C7d01b50e0d17dc79C8, validAfter 0, validBefore S+100, signed by the payer, sent by anvil key #2); block 5 (S+97) holds the payer's cancelAuthorization of paid_post(&sim, 104)'s nonce (0x..68); block 6 (S+130) is empty, the head",
  },
  token: USDC,
  transfer,
  cancel,
  blocks,
  logs: await rpc("eth_getLogs", [{ address: token, fromBlock: "0x0", toBlock: "latest" }]),
  receipts: [await rpc("eth_getTransactionReceipt", [transfer]), await rpc("eth_getTransactionReceipt", [cancel])],
  eth_getLogs: await answered("eth_getLogs", [logsOf(103, "latest"), logsOf(104, "latest"), logsOf(106, "latest"), logsOf(103, "0x3"), logsOf(104, "0x4")]),
  eth_call: await answered("eth_call", [stateOf(103, "0x3"), stateOf(103, "0x4"), stateOf(104, "0x4"), stateOf(104, "0x5"), stateOf(106, "0x6")]),
};
process.stdout.write(`${JSON.stringify(vectors, null, 1)}\n`);
process.exit(0);
