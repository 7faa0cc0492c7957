// Reads a real paid flow with the official x402 offer-receipt utilities (@x402/extensions
// 2.27.0): the 402's signed offers, a payment with the official client (@x402/fetch), the
// signed receipt in PAYMENT-RESPONSE; then the same checks on a tampered receipt. Prints one
// JSON line. Usage: node offers.mjs SERVICE_ENDPOINT TARGET_URL (loopback only; anvil's first
// development key pays).
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { decodePaymentRequiredHeader } from "@x402/core/http";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import {
  extractOffersFromPaymentRequired,
  verifyOfferSignatureEIP712,
  findAcceptsObjectFromSignedOffer,
  extractReceiptFromResponse,
  verifyReceiptSignatureEIP712,
  verifyReceiptMatchesOffer,
} from "@x402/extensions/offer-receipt";
import { privateKeyToAccount } from "viem/accounts";

const [endpoint, target] = process.argv.slice(2);
const account = privateKeyToAccount("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");
const body = JSON.stringify({ url: target });
const headers = { "Content-Type": "application/json" };

const unpaid = await fetch(endpoint, { method: "POST", headers, body });
const required = decodePaymentRequiredHeader(unpaid.headers.get("PAYMENT-REQUIRED"));
const offers = extractOffersFromPaymentRequired(required);
const offerChecks = [];
for (const offer of offers) {
  const { signer, payload } = await verifyOfferSignatureEIP712(offer);
  const accepted = findAcceptsObjectFromSignedOffer(offer, required.accepts);
  offerChecks.push({ signer, payload, matchesAccepts: accepted === required.accepts[offer.acceptIndex] });
}

const client = new x402Client().register("eip155:8453", new ExactEvmScheme(account));
const pay = wrapFetchWithPayment(fetch, client);
const paid = await pay(endpoint, { method: "POST", headers, body });
await paid.text();
const receipt = extractReceiptFromResponse(paid);
let receiptCheck = null;
let tamperedCheck = null;
if (receipt) {
  const { signer, payload } = await verifyReceiptSignatureEIP712(receipt);
  receiptCheck = {
    signer,
    payload,
    matchesOffer: offers.length > 0 && verifyReceiptMatchesOffer(receipt, offerChecks[0].payload, [account.address]),
  };
  const tampered = structuredClone(receipt);
  tampered.payload.transaction = "0x" + "00".repeat(32);
  const forged = await verifyReceiptSignatureEIP712(tampered);
  tamperedCheck = { signer: forged.signer };
}

console.log(JSON.stringify({
  unpaidStatus: unpaid.status,
  offers: offerChecks,
  paidStatus: paid.status,
  contentDigest: paid.headers.get("Content-Digest"),
  receipt: receiptCheck,
  tampered: tamperedCheck,
  payer: account.address,
}));
