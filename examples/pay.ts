/**
 * Pays for one contact extraction with the official x402 TypeScript client (`@x402/fetch`) and
 * prints the result: the same flow as `pay.py`, for Node.js.
 *
 * The service answers the first request with 402 and its payment terms; the client signs an
 * EIP-3009 USDC authorization for them (EIP-712, nothing is sent on chain by the payer) and
 * sends the request again with PAYMENT-SIGNATURE; the service crawls the site, its facilitator
 * settles the payment, and the answer is 200 with the contact data and PAYMENT-RESPONSE (the
 * settlement's transaction).
 *
 * Recovery: once PAYMENT-SIGNATURE has been sent, the money may move whatever happens to the
 * answer. So when the answer is lost (timeout, dropped connection) or is a 503 with
 * Retry-After ("settlement pending: retry with the same PAYMENT-SIGNATURE", "a request with this
 * payment is still in progress"), this script sends the same request with the same
 * PAYMENT-SIGNATURE again: the service answers it with the kept result, never a second charge
 * (docs/contract.md, "Calling it from code"). Signing a new authorization instead could pay
 * twice.
 *
 * Run: `npm install`, then `npm run pay` (compiles with tsc into dist/, runs dist/pay.js).
 *
 * Settings (environment):
 *   PAYER_PRIVATE_KEY           the paying wallet's private key (0x + 64 hex digits); required.
 *                               Use a test wallet holding testnet USDC only.
 *   SERVICE_URL                 the service's base URL (default http://127.0.0.1:8080)
 *   TARGET_URL                  the website to extract (default https://www.example.com/)
 *   EXPLORER_URL                where to look the transaction up (default https://sepolia.basescan.org)
 *   PAID_CALL_TIMEOUT_SECONDS   how long one attempt waits for its answer (default 60: the
 *                               service may take 50 s — crawl 30 + result 5 + settlement 15)
 *
 * Exit status: 0 on a paid 200, 1 otherwise (the answer is printed either way), 2 without a key.
 */
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { privateKeyToAccount } from "viem/accounts";

/** How many times the same PAYMENT-SIGNATURE is sent again before giving up. */
const MAX_RESENDS = 5;

const key = process.env.PAYER_PRIVATE_KEY ?? "";
if (!/^0x[0-9a-fA-F]{64}$/.test(key)) {
  console.error("set PAYER_PRIVATE_KEY to a test wallet's private key (0x + 64 hex digits)");
  process.exit(2);
}
const service = (process.env.SERVICE_URL ?? "http://127.0.0.1:8080").replace(/\/+$/, "");
const target = process.env.TARGET_URL ?? "https://www.example.com/";
const explorer = (process.env.EXPLORER_URL ?? "https://sepolia.basescan.org").replace(/\/+$/, "");
const timeoutMs = Number(process.env.PAID_CALL_TIMEOUT_SECONDS ?? "60") * 1000;
const endpoint = `${service}/api/v1/extract-contact`;
const body = JSON.stringify({ url: target });

const account = privateKeyToAccount(key as `0x${string}`);
const client = registerExactEvmScheme(new x402Client(), { signer: account });
console.error(`paying from ${account.address} for ${target}`);

// Every request on the wire gets its own deadline, and the PAYMENT-SIGNATURE the client sends
// is kept: it is what a retry must carry.
let sentSignature: string | null = null;
async function wire(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const request = new Request(input, init);
  sentSignature = request.headers.get("PAYMENT-SIGNATURE") ?? sentSignature;
  return fetch(request, { signal: AbortSignal.timeout(timeoutMs) });
}

let response: Response | null = null;
try {
  response = await wrapFetchWithPayment(wire, client)(endpoint, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body,
  });
} catch (error) {
  if (sentSignature === null) throw error; // nothing was signed: nothing can have been paid
  console.error(`the answer was lost (${String(error)})`);
}

for (let resend = 1; sentSignature !== null && resend <= MAX_RESENDS; resend++) {
  if (response !== null) {
    const retryAfter = response.headers.get("Retry-After");
    if (response.status !== 503 || retryAfter === null) break;
    const message = await response.clone().json().then(
      (error: { error?: { message?: string } }) => error.error?.message ?? "",
      () => "",
    );
    console.error(`503 "${message}": waiting ${retryAfter} s`);
    await new Promise((resolve) => setTimeout(resolve, Number(retryAfter) * 1000));
  }
  console.error("sending the same PAYMENT-SIGNATURE again");
  try {
    response = await fetch(endpoint, {
      method: "POST",
      headers: { "Content-Type": "application/json", "PAYMENT-SIGNATURE": sentSignature },
      body,
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    response = null;
    console.error(`the answer was lost (${String(error)})`);
  }
}

if (response === null) {
  console.error(`no answer; keep this PAYMENT-SIGNATURE and send it again later: ${sentSignature}`);
  process.exit(1);
}
const text = await response.text();
try {
  console.log(JSON.stringify(JSON.parse(text), null, 2));
} catch {
  console.log(text);
}
const receipt = response.headers.get("PAYMENT-RESPONSE");
if (receipt !== null) {
  const settlement = decodePaymentResponseHeader(receipt);
  console.error(
    `settled: ${settlement.success} on ${settlement.network}, ` +
      `transaction ${settlement.transaction} (${explorer}/tx/${settlement.transaction})`,
  );
}
if (response.status !== 200) {
  console.error(`HTTP ${response.status}: not paid`);
  process.exit(1);
}
