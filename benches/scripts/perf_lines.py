#!/usr/bin/env python3
"""CPU time per source line, from a sampled profile of real time (`perf record -e cpu-clock`),
with inlining resolved: for each sample, the innermost inlined frame that lies in this
repository's crates (`core/`, `runtime-common/`, `runtime-smol/`), else the innermost frame.
It needs no call graphs (the release build has no frame pointers), and works on the fat-LTO
release build, whose debug line tables (`debug = "line-tables-only"`) give the inlined frames.

Usage:
    cargo build --release -p contact-runtime-smol
    perf record -e cpu-clock -F 10000 -o perf.data -- taskset -c 0 \\
        target/release/contact-extract extract-dir ../shared/corpus-perf --jobs 1 > /dev/null
    python3 benches/scripts/perf_lines.py perf.data target/release/contact-extract [FILTER] [N]
    python3 benches/scripts/perf_lines.py --hot perf.data target/release/contact-extract [FILTER] [N]

FILTER keeps the lines whose location or outermost function holds it (`address.rs`,
`prescan_with`); N is how many to print (60). With `--hot`, the hottest instruction addresses
instead, each with its instruction and its source line: where a loop stalls (the instruction
after a load that misses the cache collects the samples). Each sample is 1/F seconds of CPU.
Needs perf, addr2line, nm and objdump (binutils).
"""

import collections
import re
import subprocess
import sys

OURS = re.compile(r"^/\S*/(core|runtime-common|runtime-smol)/src/")


def is_ours(location):
    """Whether a file:line lies in this repository's crates (not the standard library's `core`)."""
    return OURS.search(location) is not None and not location.startswith(("/rustc/", "/rust/")) \
        and "/.cargo/" not in location


def symbols(binary):
    """Demangled function name -> start address."""
    out = subprocess.run(["nm", "-C", "--defined-only", binary], capture_output=True, text=True)
    table = {}
    for line in out.stdout.splitlines():
        parts = line.split(" ", 2)
        if len(parts) == 3 and parts[1] in "tTwW":
            table.setdefault(parts[2], int(parts[0], 16))
    return table


def samples(data, binary):
    """(address in the binary -> samples, address -> function name) of the samples in `binary`."""
    table = symbols(binary)
    name = binary.rsplit("/", 1)[-1]
    out = subprocess.run(
        ["perf", "script", "-i", data, "-G", "-F", "ip,sym,symoff,dso"],
        capture_output=True,
        text=True,
    )
    counts, functions = collections.Counter(), {}
    for line in out.stdout.splitlines():
        if name not in line:
            continue
        m = re.match(r"\s*[0-9a-f]+ (.*)\+0x([0-9a-f]+) \(", line)
        if not m or m.group(1) not in table:
            continue
        address = table[m.group(1)] + int(m.group(2), 16)
        counts[address] += 1
        functions[address] = m.group(1)
    return counts, functions


def frames(binary, addresses):
    """address -> [(function, file:line)], innermost inlined frame first."""
    out = subprocess.run(
        ["addr2line", "-e", binary, "-i", "-f", "-C", "-a"],
        input="\n".join(hex(a) for a in addresses),
        capture_output=True,
        text=True,
    ).stdout.splitlines()
    result, current, i = {}, None, 0
    while i < len(out):
        if out[i].startswith("0x"):
            current = int(out[i], 16)
            result[current] = []
            i += 1
            continue
        result[current].append((out[i], out[i + 1] if i + 1 < len(out) else "?"))
        i += 2
    return result


def short(location):
    location = re.sub(r" \(discriminator \d+\)", "", location)
    return OURS.sub(r"\1/", location) if is_ours(location) else location


def by_line(data, binary, wanted, n):
    counts, _ = samples(data, binary)
    inlined = frames(binary, list(counts))
    lines = collections.Counter()
    for address, count in counts.items():
        fr = inlined.get(address, [])
        pick = next(((f, l) for f, l in fr if is_ours(l)), fr[0] if fr else None)
        if pick is None:
            continue
        outer = fr[-1][0] if fr else "?"
        location = short(pick[1])
        if wanted and wanted not in location and wanted not in outer:
            continue
        lines[f"{location}  [{outer[:60]}]"] += count
    print(f"samples in the binary {sum(counts.values())}, shown {sum(lines.values())}")
    for location, count in lines.most_common(n):
        print(f"{count:6d} {location}")


def hot(data, binary, wanted, n):
    counts, functions = samples(data, binary)
    top = [(a, c) for a, c in counts.most_common() if not wanted or wanted in functions[a]][:n]
    inlined = frames(binary, [a for a, _ in top])
    for address, count in top:
        dis = subprocess.run(
            ["objdump", "-d", "--no-show-raw-insn", f"--start-address={address}",
             f"--stop-address={address + 16}", binary],
            capture_output=True,
            text=True,
        ).stdout
        ins = next((l.split(":", 1)[1].strip() for l in dis.splitlines()
                    if re.match(rf"\s+{address:x}:", l)), "?")
        fr = inlined.get(address, [])
        inner = short(fr[0][1]) if fr else "?"
        ours = next((short(l) for _, l in fr if is_ours(l)), "")
        print(f"{count:5d} {functions[address][:34]:34} {ins[:28]:28} {inner[-40:]:40} {ours}")


def main(argv):
    mode = by_line
    if argv and argv[0] == "--hot":
        mode, argv = hot, argv[1:]
    if len(argv) < 2:
        sys.exit(__doc__)
    wanted = argv[2] if len(argv) > 2 else ""
    n = int(argv[3]) if len(argv) > 3 else 60
    mode(argv[0], argv[1], wanted, n)


if __name__ == "__main__":
    main(sys.argv[1:])
