// The real-chain lab for `tests/tests/real_chain.rs`: on a local anvil chain (chain id 8453) it
// compiles the test token (TestUsdc.sol, solc-js), places its runtime code at the Base USDC
// address, mints 1 USDC to the payer, and serves the reference x402 facilitator
// (`x402Facilitator` + `ExactEvmScheme`, @x402 2.27.0) on 127.0.0.1 with `/supported`, `/verify`
// and `/settle`, plus test-only `/lab/*` routes (balances, transfers, cancellations, a receipt,
// a cancellation signed by the payer, a cancellation armed to follow the next `/verify` answer,
// how many `/verify` and `/settle` calls the facilitator received). Loopback only. Prints one
// JSON line `{"port":N}` when ready; exits when its standard input closes.
// Usage: node lab.mjs RPC_URL [--confirmation-timeout-ms N]
import http from "node:http";
import { compileToken } from "./token.mjs";
import { createWalletClient, createPublicClient, http as rpc, publicActions, defineChain, parseAbiItem, encodeFunctionData, parseSignature } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { x402Facilitator } from "@x402/core/facilitator";
import { ExactEvmScheme } from "@x402/evm/exact/facilitator";
import { toFacilitatorEvmSigner } from "@x402/evm";

const [rpcUrl, ...options] = process.argv.slice(2);
const confirmationTimeoutMs = Number(options[options.indexOf("--confirmation-timeout-ms") + 1] ?? 5000) || 5000;

const USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";
const NETWORK = "eip155:8453";
// anvil's well-known development keys: #0 pays, #1 deploys, #2 is the facilitator's signer.
const PAYER = privateKeyToAccount("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");
const DEPLOYER = privateKeyToAccount("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d");
const SIGNER = privateKeyToAccount("0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a");

const chain = defineChain({ id: 8453, name: "anvil-base", nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, rpcUrls: { default: { http: [rpcUrl] } } });
const publicClient = createPublicClient({ chain, transport: rpc(rpcUrl) });
const wallet = (account) => createWalletClient({ account, chain, transport: rpc(rpcUrl) }).extend(publicActions);

// Compile the token.
const { abi, bytecode } = compileToken();

// Deploy anywhere, then copy the runtime code to the USDC address and fund the payer.
const deployer = wallet(DEPLOYER);
const deployHash = await deployer.deployContract({ abi, bytecode });
const deployed = await publicClient.waitForTransactionReceipt({ hash: deployHash });
const code = await publicClient.getCode({ address: deployed.contractAddress });
await publicClient.request({ method: "anvil_setCode", params: [USDC, code] });
const mintHash = await deployer.writeContract({ address: USDC, abi, functionName: "mint", args: [PAYER.address, 1_000_000n] });
await publicClient.waitForTransactionReceipt({ hash: mintHash });

const facilitator = new x402Facilitator().register(
  NETWORK,
  // `address` set, or `/supported` lists `signers: [null]`.
  new ExactEvmScheme(toFacilitatorEvmSigner(Object.assign(wallet(SIGNER), { address: SIGNER.address }), { confirmationTimeoutMs })),
);

const TRANSFER = parseAbiItem("event Transfer(address indexed from, address indexed to, uint256 value)");
const CANCELED = parseAbiItem("event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce)");

// The facilitator calls received, for `/lab/calls`.
const calls = { verify: 0, settle: 0 };

// Armed by `/lab/cancel-after-verify`; the cancellation in flight, awaited by `/settle`.
let cancelAfterVerify = false;
let cancelling = null;

// The payer cancels an authorization (EIP-3009 cancelAuthorization, FiatTokenV2's
// `(authorizer, nonce, v, r, s)` form) with a tip high above the facilitator's, so a miner
// orders it first; the transaction hash.
async function cancel(nonce) {
  const signature = await PAYER.signTypedData({
    domain: { name: "USD Coin", version: "2", chainId: 8453, verifyingContract: USDC },
    types: { CancelAuthorization: [{ name: "authorizer", type: "address" }, { name: "nonce", type: "bytes32" }] },
    primaryType: "CancelAuthorization",
    message: { authorizer: PAYER.address, nonce },
  });
  const { r, s, v } = parseSignature(signature);
  const fees = await publicClient.estimateFeesPerGas();
  return wallet(PAYER).sendTransaction({
    to: USDC,
    data: encodeFunctionData({ abi, functionName: "cancelAuthorization", args: [PAYER.address, nonce, Number(v), r, s] }),
    gas: 200_000n,
    maxFeePerGas: fees.maxFeePerGas * 10n,
    maxPriorityFeePerGas: fees.maxFeePerGas * 5n,
  });
}

async function lab(route, body) {
  if (route === "/lab/calls") return calls;
  if (route.startsWith("/lab/balance/")) {
    const owner = route.slice("/lab/balance/".length);
    return { balance: String(await publicClient.readContract({ address: USDC, abi, functionName: "balanceOf", args: [owner] })) };
  }
  if (route === "/lab/transfers") {
    // Every Transfer that is not a mint.
    const logs = await publicClient.getLogs({ address: USDC, event: TRANSFER, fromBlock: 0n });
    return { transfers: logs.filter((l) => l.args.from !== "0x0000000000000000000000000000000000000000").map((l) => ({ from: l.args.from, to: l.args.to, value: String(l.args.value), transaction: l.transactionHash })) };
  }
  if (route === "/lab/cancelled") {
    // The nonces of every AuthorizationCanceled.
    const logs = await publicClient.getLogs({ address: USDC, event: CANCELED, fromBlock: 0n });
    return { nonces: logs.map((l) => l.args.nonce) };
  }
  if (route.startsWith("/lab/receipt/")) {
    const receipt = await publicClient.getTransactionReceipt({ hash: route.slice("/lab/receipt/".length) });
    return { status: receipt.status, transferLogs: receipt.logs.filter((l) => l.topics[0] === "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef").length };
  }
  if (route === "/lab/cancel") return { transaction: await cancel(body.nonce) };
  if (route === "/lab/cancel-after-verify") {
    // The payer cancels the authorization of the next valid `/verify` as soon as that answer is
    // sent (and the cancellation is mined before any later `/settle` is handled).
    cancelAfterVerify = true;
    return { armed: true };
  }
  return null;
}

async function answer(request, body) {
  if (request.method === "GET" && request.url === "/supported") return facilitator.getSupported();
  if (request.method === "POST" && request.url === "/verify") {
    calls.verify += 1;
    const verified = await facilitator.verify(body.paymentPayload, body.paymentRequirements);
    if (cancelAfterVerify && verified.isValid) {
      cancelAfterVerify = false;
      const nonce = body.paymentPayload.payload.authorization.nonce;
      // After this answer is sent (setImmediate): the cancellation and its receipt.
      cancelling = new Promise((resolve) => setImmediate(resolve))
        .then(() => cancel(nonce))
        .then((hash) => publicClient.waitForTransactionReceipt({ hash }));
    }
    return verified;
  }
  if (request.method === "POST" && request.url === "/settle") {
    calls.settle += 1;
    if (cancelling) await cancelling;
    return facilitator.settle(body.paymentPayload, body.paymentRequirements);
  }
  return lab(request.url, body);
}

const server = http.createServer((request, response) => {
  const chunks = [];
  request.on("data", (c) => chunks.push(c));
  request.on("end", async () => {
    let status = 200;
    let result;
    try {
      const text = Buffer.concat(chunks).toString("utf8");
      result = await answer(request, text ? JSON.parse(text) : {});
      if (result === null) { status = 404; result = { error: "not found" }; }
    } catch (error) {
      status = 500;
      result = { error: String(error?.message ?? error) };
    }
    const json = JSON.stringify(result, (_, v) => (typeof v === "bigint" ? String(v) : v));
    response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(json) });
    response.end(json);
  });
});
server.listen(0, "127.0.0.1", () => {
  console.log(JSON.stringify({ port: server.address().port }));
});
process.stdin.on("end", () => process.exit(0));
process.stdin.resume();
