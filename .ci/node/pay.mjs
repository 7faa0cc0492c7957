// Pays the paid endpoint with the official x402 v2 client (@x402/fetch + @x402/evm), then
// replays the exact PAYMENT-SIGNATURE it sent, and prints one JSON line with both outcomes.
// Usage: node pay.mjs SERVICE_ENDPOINT TARGET_URL [--payment-id | --once]
// (loopback only; anvil's first development key, or PAYER_KEY). With --payment-id the client
// adds an x402 `payment-identifier` id (the official @x402/extensions helper) to its payment;
// with --once it does not replay (the caller retries with the printed signature itself).
import { wrapFetchWithPayment, x402Client, decodePaymentResponseHeader } from "@x402/fetch";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { appendPaymentIdentifierToExtensions } from "@x402/extensions/payment-identifier";
import { privateKeyToAccount } from "viem/accounts";

const [endpoint, target, option] = process.argv.slice(2);
const account = privateKeyToAccount(process.env.PAYER_KEY || "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");
const client = new x402Client().register("eip155:8453", new ExactEvmScheme(account));
if (option === "--payment-id") {
  client.registerExtension({
    key: "payment-identifier",
    enrichPaymentPayload: async (payload) => {
      const extensions = structuredClone(payload.extensions ?? {});
      appendPaymentIdentifierToExtensions(extensions);
      return { ...payload, extensions };
    },
  });
}

let sentSignature = null;
const recordingFetch = async (input, init) => {
  const request = new Request(input, init);
  const signature = request.headers.get("PAYMENT-SIGNATURE");
  if (signature) sentSignature = signature;
  return fetch(request);
};

const pay = wrapFetchWithPayment(recordingFetch, client);
const body = JSON.stringify({ url: target });
const paid = await pay(endpoint, { method: "POST", headers: { "Content-Type": "application/json" }, body });
const paidText = await paid.text();
const receipt = paid.headers.get("PAYMENT-RESPONSE");

// A client that lost the response retries with the same PAYMENT-SIGNATURE.
const replay = option === "--once" ? null : await fetch(endpoint, {
  method: "POST",
  headers: { "Content-Type": "application/json", "PAYMENT-SIGNATURE": sentSignature ?? "" },
  body,
});
const replayText = replay ? await replay.text() : null;

console.log(JSON.stringify({
  status: paid.status,
  body: (() => { try { return JSON.parse(paidText); } catch { return null; } })(),
  bodyText: paidText,
  paymentResponse: receipt ? decodePaymentResponseHeader(receipt) : null,
  paymentResponseHeader: receipt,
  signature: sentSignature,
  replayStatus: replay?.status ?? null,
  replayBodyText: replayText,
  replayPaymentResponseHeader: replay?.headers.get("PAYMENT-RESPONSE") ?? null,
}));
