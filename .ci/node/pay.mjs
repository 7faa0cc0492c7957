// Pays the paid endpoint with the official x402 v2 client (@x402/fetch + @x402/evm), then
// replays the exact PAYMENT-SIGNATURE it sent, and prints one JSON line with both outcomes.
// Usage: node pay.mjs SERVICE_ENDPOINT TARGET_URL   (loopback only; test key of x402-notes §7.1)
import { wrapFetchWithPayment, x402Client, decodePaymentResponseHeader } from "@x402/fetch";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { privateKeyToAccount } from "viem/accounts";

const [endpoint, target] = process.argv.slice(2);
const account = privateKeyToAccount("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");
const client = new x402Client().register("eip155:8453", new ExactEvmScheme(account));

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

const replay = await fetch(endpoint, {
  method: "POST",
  headers: { "Content-Type": "application/json", "PAYMENT-SIGNATURE": sentSignature ?? "" },
  body,
});
await replay.text();

console.log(JSON.stringify({
  status: paid.status,
  body: JSON.parse(paidText),
  paymentResponse: receipt ? decodePaymentResponseHeader(receipt) : null,
  signatureSent: sentSignature !== null,
  replayStatus: replay.status,
}));
