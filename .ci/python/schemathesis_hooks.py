"""Schemathesis hooks that pay: every generated POST to the paid route carries a fresh
PAYMENT-SIGNATURE (EIP-3009 TransferWithAuthorization signed with anvil's first development
key, as the official clients build it), and a schema-valid body's `url` points at the loopback
fixture site, so the paid route's 200, 4xx and 422 answers are all checked against the schema
and no generated host is ever resolved. Settings (environment): PAY_TARGET (the fixture site's
URL), PAY_REQUIREMENTS (the service's PaymentRequirements, JSON). Used by
tests/tests/schemathesis.rs (SCHEMATHESIS_HOOKS=schemathesis_hooks).
"""
import base64, json, os, secrets, time
import schemathesis
from eth_account import Account

KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"
TARGET = os.environ["PAY_TARGET"]
REQ = json.loads(os.environ["PAY_REQUIREMENTS"])

def signature():
    """A fresh base64 PaymentPayload for REQ, valid for 100 s."""
    account = Account.from_key(KEY)
    auth = {"from": account.address, "to": REQ["payTo"], "value": REQ["amount"], "validAfter": "0",
            "validBefore": str(int(time.time()) + 100), "nonce": "0x" + secrets.token_hex(32)}
    typed = {
        "types": {"EIP712Domain": [{"name": "name", "type": "string"}, {"name": "version", "type": "string"},
                                    {"name": "chainId", "type": "uint256"}, {"name": "verifyingContract", "type": "address"}],
                  "TransferWithAuthorization": [{"name": "from", "type": "address"}, {"name": "to", "type": "address"},
                                                {"name": "value", "type": "uint256"}, {"name": "validAfter", "type": "uint256"},
                                                {"name": "validBefore", "type": "uint256"}, {"name": "nonce", "type": "bytes32"}]},
        "primaryType": "TransferWithAuthorization",
        "domain": {"name": REQ["extra"]["name"], "version": REQ["extra"]["version"], "chainId": int(REQ["network"].split(":")[1]),
                   "verifyingContract": REQ["asset"]},
        "message": {**auth, "value": int(auth["value"]), "validAfter": 0, "validBefore": int(auth["validBefore"]),
                    "nonce": bytes.fromhex(auth["nonce"][2:])},
    }
    signed = account.sign_typed_data(full_message=typed)
    payload = {"x402Version": 2, "payload": {"authorization": auth, "signature": "0x" + signed.signature.hex().removeprefix("0x")},
               "accepted": REQ}
    return base64.b64encode(json.dumps(payload).encode()).decode()

@schemathesis.hook
def before_call(ctx, case, kwargs):
    """Pays every POST; keeps every schema-valid URL on loopback."""
    if case.operation.method.upper() != "POST":
        return
    if isinstance(case.body, dict) and isinstance(case.body.get("url"), str):
        case.body["url"] = TARGET
    case.headers = {**(case.headers or {}), "PAYMENT-SIGNATURE": signature()}
