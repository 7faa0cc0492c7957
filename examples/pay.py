"""Pays for one contact extraction with the official x402 Python client and prints the result.

The service answers the first request with 402 and its payment terms; the client signs an
EIP-3009 USDC authorization for them (EIP-712, nothing is sent on chain by the payer) and sends
the request again with PAYMENT-SIGNATURE; the service crawls the site, its facilitator settles
the payment, and the answer is 200 with the contact data and PAYMENT-RESPONSE (the settlement's
transaction). See "Try it on Base Sepolia" in the README.

Settings (environment):
  PAYER_PRIVATE_KEY  the paying wallet's private key (0x + 64 hex digits); required. Use a test
                     wallet holding testnet USDC only.
  SERVICE_URL        the service's base URL (default http://127.0.0.1:8080)
  TARGET_URL         the website to extract (default https://www.example.com/)
  EXPLORER_URL       where to look the transaction up (default https://sepolia.basescan.org)

Exit status: 0 on a paid 200, 1 otherwise (the answer is printed either way).
"""

import asyncio
import base64
import json
import os
import sys

import httpx
from eth_account import Account
from x402 import x402Client
from x402.http.clients.httpx import x402AsyncTransport
from x402.mechanisms.evm.exact.register import register_exact_evm_client
from x402.mechanisms.evm.signers import EthAccountSigner


async def main() -> int:
    key = os.environ.get("PAYER_PRIVATE_KEY", "")
    if not key:
        print("set PAYER_PRIVATE_KEY to a test wallet's private key (0x…)", file=sys.stderr)
        return 2
    service = os.environ.get("SERVICE_URL", "http://127.0.0.1:8080").rstrip("/")
    target = os.environ.get("TARGET_URL", "https://www.example.com/")
    explorer = os.environ.get("EXPLORER_URL", "https://sepolia.basescan.org").rstrip("/")

    account = Account.from_key(key)
    client = x402Client()
    register_exact_evm_client(client, EthAccountSigner(account))
    print(f"paying from {account.address} for {target}", file=sys.stderr)
    async with httpx.AsyncClient(transport=x402AsyncTransport(client), timeout=90) as http:
        response = await http.post(
            f"{service}/api/v1/extract-contact", json={"url": target}
        )

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
