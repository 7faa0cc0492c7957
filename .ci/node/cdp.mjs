// A test facilitator that DEMANDS a Coinbase Developer Platform JWT on every call, checked with
// npm `jose` 6.2.17 against the key's public half, and the tokens of the official SDK
// (`@coinbase/cdp-sdk` 1.57.0 `generateJwt`) to check the checker with. Loopback only.
//
//   node cdp.mjs keys DIR
//       writes test keys: es256-pkcs8.pem, es256-sec1.pem, ed25519.b64 (seed ‖ public, base64),
//       other-es256-pkcs8.pem (a second key), and each one's public JWK (*.pub.json).
//   node cdp.mjs sdk-token KEY_ID SECRET_FILE METHOD HOST PATH
//       prints the SDK's token for that request.
//   node cdp.mjs serve KEY_ID PUBLIC_JWK_FILE
//       listens on 127.0.0.1 (prints "listening PORT"), answers GET /supported, POST /verify and
//       POST /settle like an accepting facilitator when the token passes, 401 otherwise; prints
//       one JSON line per request ({method, path, ok, reason}); stops when stdin closes.
//
// A token passes when: its signature verifies with the public key (ES256 or EdDSA, the key's
// own algorithm); `iss` is "cdp"; `nbf` <= now < `exp` (jose, no clock tolerance); `exp - nbf`
// <= 120; header `typ` "JWT", `kid` = KEY_ID, `nonce` 32 lower-case hex digits; `sub` = KEY_ID;
// `uris` is exactly ["METHOD host/path"] of the request it came with (the Host header and the
// path without the query).
import { createServer } from "node:http";
import { generateKeyPairSync } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { importJWK, jwtVerify, decodeProtectedHeader } from "jose";
import { generateJwt } from "@coinbase/cdp-sdk/auth";

const [mode, ...args] = process.argv.slice(2);

const SUPPORTED = JSON.stringify({
  kinds: [{ x402Version: 2, scheme: "exact", network: "eip155:8453" }],
  extensions: [],
  signers: {},
});

if (mode === "keys") {
  const [dir] = args;
  const ec = (name) => {
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    writeFileSync(join(dir, `${name}-pkcs8.pem`), privateKey.export({ type: "pkcs8", format: "pem" }));
    writeFileSync(join(dir, `${name}-sec1.pem`), privateKey.export({ type: "sec1", format: "pem" }));
    writeFileSync(join(dir, `${name}.pub.json`), JSON.stringify({ ...publicKey.export({ format: "jwk" }), alg: "ES256" }));
  };
  ec("es256");
  ec("other-es256");
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  const jwk = privateKey.export({ format: "jwk" });
  const pair = Buffer.concat([Buffer.from(jwk.d, "base64url"), Buffer.from(jwk.x, "base64url")]);
  writeFileSync(join(dir, "ed25519.b64"), pair.toString("base64") + "\n");
  writeFileSync(join(dir, "ed25519.pub.json"), JSON.stringify({ ...publicKey.export({ format: "jwk" }), alg: "EdDSA" }));
} else if (mode === "sdk-token") {
  const [apiKeyId, secretFile, requestMethod, requestHost, requestPath] = args;
  const apiKeySecret = readFileSync(secretFile, "utf8");
  console.log(await generateJwt({ apiKeyId, apiKeySecret, requestMethod, requestHost, requestPath }));
} else if (mode === "serve") {
  const [keyId, jwkFile] = args;
  const jwk = JSON.parse(readFileSync(jwkFile, "utf8"));
  const key = await importJWK(jwk, jwk.alg);

  const check = async (req) => {
    const auth = req.headers.authorization ?? "";
    if (!auth.startsWith("Bearer ")) return "no bearer token";
    const token = auth.slice("Bearer ".length);
    let verified;
    try {
      verified = await jwtVerify(token, key, { issuer: "cdp", algorithms: [jwk.alg] });
    } catch (error) {
      return `jose: ${error.code ?? error.message}`;
    }
    const { payload, protectedHeader } = verified;
    if (protectedHeader.typ !== "JWT") return "typ is not JWT";
    if (protectedHeader.kid !== keyId) return "kid is not the key id";
    if (!/^[0-9a-f]{32}$/.test(protectedHeader.nonce ?? "")) return "nonce is not 16 bytes in hex";
    if (payload.sub !== keyId) return "sub is not the key id";
    if (typeof payload.exp !== "number" || typeof payload.nbf !== "number") return "no exp or nbf";
    if (payload.exp - payload.nbf > 120) return "lives longer than 120 s";
    const path = new URL(req.url, "http://placeholder").pathname;
    const uri = `${req.method} ${req.headers.host}${path}`;
    if (JSON.stringify(payload.uris) !== JSON.stringify([uri])) {
      return `uris ${JSON.stringify(payload.uris)} is not [${JSON.stringify(uri)}]`;
    }
    return null;
  };

  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", async () => {
      const path = new URL(req.url, "http://placeholder").pathname;
      const reason = await check(req);
      let alg = null;
      try {
        alg = decodeProtectedHeader((req.headers.authorization ?? "").slice(7)).alg;
      } catch {}
      console.log(JSON.stringify({ method: req.method, path, ok: reason === null, reason, alg }));
      if (reason !== null) {
        res.writeHead(401, { "Content-Type": "application/json" });
        res.end(JSON.stringify({ errorType: "unauthorized", errorMessage: reason }));
        return;
      }
      res.writeHead(200, { "Content-Type": "application/json" });
      if (path.endsWith("/supported")) res.end(SUPPORTED);
      else if (path.endsWith("/verify")) res.end(JSON.stringify({ isValid: true }));
      else res.end(JSON.stringify({ success: true, transaction: "0xfeed", network: "eip155:8453" }));
    });
  });
  server.listen(0, "127.0.0.1", () => console.log(`listening ${server.address().port}`));
  process.stdin.on("end", () => process.exit(0));
  process.stdin.resume();
  setTimeout(() => process.exit(0), 600_000).unref();
} else {
  console.error("usage: node cdp.mjs keys DIR | sdk-token … | serve KEY_ID PUBLIC_JWK_FILE");
  process.exit(2);
}
