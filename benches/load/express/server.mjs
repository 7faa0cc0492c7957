// The reference: @x402/express 2.27 guarding the same route as our service, for the load
// benchmark's unpaid-402 comparison (benches/load/run.sh). The facilitator is an in-process
// stub (docs/payments.md "x402 v2 in practice"): the unpaid path never calls it. Usage: node server.mjs PORT
import express from "express";
import { paymentMiddleware, x402ResourceServer } from "@x402/express";
import { ExactEvmScheme } from "@x402/evm/exact/server";

const port = Number(process.argv[2] ?? 4021);
const network = "eip155:8453";
const stubFacilitator = {
  async getSupported() {
    return { kinds: [{ x402Version: 2, scheme: "exact", network }], extensions: [], signers: {} };
  },
  async verify() {
    return { isValid: false, invalidReason: "stub" };
  },
  async settle() {
    return { success: false, errorReason: "stub", transaction: "", network };
  },
};
const server = new x402ResourceServer(stubFacilitator).register(network, new ExactEvmScheme());
const routes = {
  "POST /api/v1/extract-contact": {
    accepts: {
      scheme: "exact",
      price: "$0.01",
      network,
      payTo: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
    },
    description: "Extract public business contact data from a website",
    mimeType: "application/json",
  },
};
const app = express();
app.use(express.json({ limit: "16kb" }));
app.use(paymentMiddleware(routes, server));
app.post("/api/v1/extract-contact", (_req, res) => res.json({ success: true }));
app.listen(port, "127.0.0.1", () => console.error(`express reference listening on ${port}`));
