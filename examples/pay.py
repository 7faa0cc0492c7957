"""Pays for one contact extraction with the official x402 Python client and prints the result.

The service answers the first request with 402 and its payment terms; the client signs an
EIP-3009 USDC authorization for them (EIP-712, nothing is sent on chain by the payer) and sends
the request again with PAYMENT-SIGNATURE; the service crawls the site, its facilitator settles
the payment, and the answer is 200 with the contact data and PAYMENT-RESPONSE (the settlement's
transaction). See "Try it on Base Sepolia" in the README.

Recovery: once PAYMENT-SIGNATURE has been sent, the money may move whatever happens to the answer.
So when the answer is lost (timeout, dropped connection) or is a 503 with Retry-After
("settlement pending: retry with the same PAYMENT-SIGNATURE", "a request with this payment is
still in progress"), this script sends the same request with the same PAYMENT-SIGNATURE again:
the service answers it with the kept result, never a second charge (docs/contract.md, "Calling it
from code"). Signing a new authorization instead could pay twice.

Settings (environment):
  PAYER_PRIVATE_KEY  the paying wallet's private key (0x + 64 hex digits); required. Use a test
                     wallet holding testnet USDC only.
  SERVICE_URL        the service's base URL (default http://127.0.0.1:8080)
  TARGET_URL         the website to extract (default https://www.example.com/)
  EXPLORER_URL       where to look the transaction up (default https://sepolia.basescan.org)
  PAID_CALL_TIMEOUT_SECONDS
                     how long one attempt waits for its answer (default 60: the service may
                     take 50 s — crawl 30 + result 5 + settlement 15)

Exit status: 0 on a paid 200, 1 otherwise (the answer is printed either way), 2 without a key.
"""

import asyncio
import base64
import json
import os
import sys

import httpx
from eth_account import Account
from x402 import x402Client
from x402.http.clients.httpx import PaymentError, x402AsyncTransport
from x402.mechanisms.evm.exact.register import register_exact_evm_client
from x402.mechanisms.evm.signers import EthAccountSigner

# How many times the same PAYMENT-SIGNATURE is sent again before giving up.
MAX_RESENDS = 5


async def main() -> int:
    key = os.environ.get("PAYER_PRIVATE_KEY", "")
    if not key:
        print("set PAYER_PRIVATE_KEY to a test wallet's private key (0x…)", file=sys.stderr)
        return 2
    service = os.environ.get("SERVICE_URL", "http://127.0.0.1:8080").rstrip("/")
    target = os.environ.get("TARGET_URL", "https://www.example.com/")
    explorer = os.environ.get("EXPLORER_URL", "https://sepolia.basescan.org").rstrip("/")

    timeout = float(os.environ.get("PAID_CALL_TIMEOUT_SECONDS", "60"))
    endpoint = f"{service}/api/v1/extract-contact"
    sent = {}

    class Recording(httpx.AsyncHTTPTransport):
        """The wire under the x402 transport: keeps the PAYMENT-SIGNATURE a retry must carry."""

        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            if "payment-signature" in request.headers:
                sent["signature"] = request.headers["payment-signature"]
            return await super().handle_async_request(request)

    account = Account.from_key(key)
    client = x402Client()
    register_exact_evm_client(client, EthAccountSigner(account))
    print(f"paying from {account.address} for {target}", file=sys.stderr)
    paying = x402AsyncTransport(client, transport=Recording())
    response = None
    async with httpx.AsyncClient(transport=paying, timeout=timeout) as http:
        try:
            response = await http.post(endpoint, json={"url": target})
        except (httpx.TransportError, PaymentError) as error:
            # The x402 transport reports a timeout of the paid request as a PaymentError.
            if "signature" not in sent:
                raise  # nothing was signed: nothing can have been paid
            print(f"the answer was lost ({error!r})", file=sys.stderr)

    async with httpx.AsyncClient(timeout=timeout) as http:
        for _ in range(MAX_RESENDS):
            if "signature" not in sent:
                break
            if response is not None:
                retry_after = response.headers.get("Retry-After")
                if response.status_code != 503 or retry_after is None:
                    break
                message = response.json().get("error", {}).get("message", "")
                print(f'503 "{message}": waiting {retry_after} s', file=sys.stderr)
                await asyncio.sleep(float(retry_after))
            print("sending the same PAYMENT-SIGNATURE again", file=sys.stderr)
            try:
                response = await http.post(
                    endpoint,
                    json={"url": target},
                    headers={"PAYMENT-SIGNATURE": sent["signature"]},
                )
            except httpx.TransportError as error:
                response = None
                print(f"the answer was lost ({error!r})", file=sys.stderr)

    if response is None:
        print(
            f"no answer; keep this PAYMENT-SIGNATURE and send it again later: {sent['signature']}",
            file=sys.stderr,
        )
        return 1
    try:
        body = response.json()
    except ValueError:
        body = response.text
    print(json.dumps(body, indent=2))
    receipt = response.headers.get("PAYMENT-RESPONSE")
    if receipt:
        settlement = json.loads(base64.b64decode(receipt))
        transaction = settlement.get("transaction", "")
        print(
            f"settled: {settlement.get('success')} on {settlement.get('network')}, "
            f"transaction {transaction} ({explorer}/tx/{transaction})",
            file=sys.stderr,
        )
    if response.status_code != 200:
        print(f"HTTP {response.status_code}: not paid", file=sys.stderr)
        return 1
    return 0


sys.exit(asyncio.run(main()))
