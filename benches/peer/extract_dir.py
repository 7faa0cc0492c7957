#!/usr/bin/env python3
"""The Python peer for `contact-extract extract-dir`: the plain pipeline people write with
lxml + phonenumbers (the reference point). For every *.html/*.htm under DIR (sorted),
as a one-page site: visible text (no script/style/noscript/template), emails (text and mailto:),
phone numbers (phonenumbers.PhoneNumberMatcher over the text, region from the ccTLD of the
page's canonical URL, else US; tel: links), social profile links and JSON-LD blocks. One JSON
line per page on stdout; `pages: N, MB: X, seconds: S, MB/s: R` on stderr, as extract-dir does.

    pip install lxml phonenumbers
    python3 benches/peer/extract_dir.py ../shared/corpus-perf > /dev/null
"""
import json
import os
import re
import sys
import time

import lxml.html
import phonenumbers

EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,24}")
SOCIAL = re.compile(r"https?://(?:www\.)?(facebook|linkedin|instagram|twitter|x|youtube)\.com/[^\s\"'<>]+")
SKIP = {"script", "style", "noscript", "template"}


def region_of(url):
    host = re.sub(r"^[a-z]+://", "", url or "").split("/")[0].split(":")[0]
    tld = host.rsplit(".", 1)[-1].upper()
    if tld == "UK":
        return "GB"
    return tld if len(tld) == 2 and tld.isalpha() else "US"


def extract(raw):
    try:
        doc = lxml.html.document_fromstring(raw)
    except Exception:  # empty or unparsable pages give an empty result, as extract-dir does
        return {}
    canonical = doc.xpath("string(//link[@rel='canonical']/@href)") or doc.xpath(
        "string(//meta[@property='og:url']/@content)")
    json_ld = [s.text_content() for s in doc.xpath("//script[@type='application/ld+json']")]
    for el in doc.xpath("//script|//style|//noscript|//template"):
        el.drop_tree()
    text = "\n".join(t.strip() for t in doc.itertext() if t.strip())
    hrefs = doc.xpath("//a/@href")
    emails = sorted({e.lower() for e in EMAIL.findall(text)}
                    | {h[7:].split("?")[0].lower() for h in hrefs if h.lower().startswith("mailto:")})
    region = region_of(canonical)
    phones = set()
    for m in phonenumbers.PhoneNumberMatcher(text, region):
        if phonenumbers.is_valid_number(m.number):
            phones.add(phonenumbers.format_number(m.number, phonenumbers.PhoneNumberFormat.E164))
    for h in hrefs:
        if h.lower().startswith("tel:"):
            try:
                n = phonenumbers.parse(h[4:], region)
                if phonenumbers.is_valid_number(n):
                    phones.add(phonenumbers.format_number(n, phonenumbers.PhoneNumberFormat.E164))
            except phonenumbers.NumberParseException:
                pass
    socials = sorted({m.group(0) for h in hrefs for m in [SOCIAL.match(h)] if m})
    return {"url": canonical, "emails": emails, "phones": sorted(phones), "socials": socials,
            "jsonLd": len(json_ld)}


def main():
    root = sys.argv[1]
    files = sorted(os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs
                   if f.lower().endswith((".html", ".htm")))
    started = time.perf_counter()
    total = 0
    out = sys.stdout
    for path in files:
        with open(path, "rb") as f:
            raw = f.read()
        total += len(raw)
        out.write(json.dumps({"file": path, "result": extract(raw)}) + "\n")
    seconds = time.perf_counter() - started
    print(f"pages: {len(files)}, MB: {total / 1e6:.2f}, seconds: {seconds:.3f}, "
          f"MB/s: {total / 1e6 / seconds:.1f}", file=sys.stderr)


if __name__ == "__main__":
    main()
