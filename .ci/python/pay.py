"""Pays the paid endpoint once with the official x402 Python client (`x402` from PyPI) and prints
one JSON line: status, body, the decoded PAYMENT-RESPONSE and the PAYMENT-SIGNATURE it sent.

Usage: pay.py SERVICE_ENDPOINT TARGET_URL (loopback only; anvil's first development key, or
PAYER_KEY).
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

KEY = os.environ.get(
    "PAYER_KEY", "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"
)


async def main(endpoint: str, target: str) -> None:
    sent = {}

    class Recording(httpx.AsyncHTTPTransport):
        """The wire transport under the x402 one: sees the retry carrying the signature."""

        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            if "payment-signature" in request.headers:
                sent["signature"] = request.headers["payment-signature"]
            return await super().handle_async_request(request)

    client = x402Client()
    register_exact_evm_client(client, EthAccountSigner(Account.from_key(KEY)))
    transport = x402AsyncTransport(client, transport=Recording())
    async with httpx.AsyncClient(transport=transport, timeout=60) as http:
        response = await http.post(endpoint, json={"url": target})
    receipt = response.headers.get("PAYMENT-RESPONSE")
    try:
        body = response.json()
    except ValueError:
        body = None
    print(
        json.dumps(
            {
                "status": response.status_code,
                "body": body,
                "paymentResponse": json.loads(base64.b64decode(receipt)) if receipt else None,
                "signature": sent.get("signature"),
            }
        )
    )


asyncio.run(main(sys.argv[1], sys.argv[2]))
