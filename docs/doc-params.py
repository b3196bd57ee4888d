#!/usr/bin/env python3
"""Lists the public functions and initializers of the library products whose doc comment does not
name every parameter (`- Parameters:` / `- Parameter x:`) or, returning something, has no
`- Returns:`. Reads the symbol graphs that `bash docs/public-api.sh` leaves behind:

    bash docs/public-api.sh >/dev/null && python3 docs/doc-params.py "$(swift build --show-bin-path)/../symbolgraph"

Left out: operators, and what only witnesses a standard protocol (`hash(into:)`, the literal and
raw-value initializers), whose documentation is the protocol's. Prints one line a function, then a
count; exits 0 either way (a report, not a check).
"""
import glob, json, os, re, sys

MODULES = {"Compositor", "CompositorCore", "CompositorHLS", "CompositorMP4", "CompositorAds", "CompositorAVFoundation", "CompositorTesting"}
KINDS = {"swift.init", "swift.method", "swift.type.method", "swift.func"}
WITNESSES = {"hash(into:)", "init(rawValue:)", "init(stringLiteral:)", "init(unicodeScalarLiteral:)",
             "init(extendedGraphemeClusterLiteral:)", "init(integerLiteral:)", "init(from:)", "encode(to:)"}


def missing(symbol):
    signature = symbol.get("functionSignature", {})
    lines = [line["text"] for line in symbol.get("docComment", {}).get("lines", [])]
    text = "\n".join(lines)
    documented = set(re.findall(r"^\s*-\s+Parameter\s+(\w+)\s*:", text, re.M))
    block = re.search(r"^\s*-\s+Parameters:\s*\n((?:\s+-\s+\w+\s*:.*\n?|\s{4,}.*\n?)*)", text, re.M)
    if block:
        documented |= set(re.findall(r"^\s+-\s+(\w+)\s*:", block.group(1), re.M))
    what = []
    for parameter in signature.get("parameters", []):
        names = {parameter.get("name"), parameter.get("internalName")} - {None}
        if not names & documented:
            what.append("parameter " + (parameter.get("internalName") or parameter["name"]))
    returns = "".join(fragment["spelling"] for fragment in signature.get("returns", []))
    if symbol["kind"]["identifier"] != "swift.init" and returns not in ("", "()", "Void") \
            and not re.search(r"^\s*-\s+Returns:", text, re.M):
        what.append("returns")
    return what


def main(folder):
    seen, report = set(), []
    for path in sorted(glob.glob(os.path.join(folder, "*.symbols.json"))):
        graph = json.load(open(path))
        if graph["module"]["name"] not in MODULES:
            continue
        for symbol in graph["symbols"]:
            if symbol.get("accessLevel") not in ("public", "open") or symbol["kind"]["identifier"] not in KINDS:
                continue
            if "location" not in symbol or symbol["pathComponents"][-1] in WITNESSES:
                continue
            key = symbol["identifier"]["precise"]
            if key in seen:
                continue
            seen.add(key)
            what = missing(symbol)
            if what:
                file = symbol["location"]["uri"].split("/Sources/", 1)[-1]
                line = symbol["location"]["position"]["line"] + 1
                report.append(f"Sources/{file}:{line}: {'.'.join(symbol['pathComponents'])}: no {', '.join(what)}")
    for line in sorted(report):
        print(line)
    print(f"# {len(report)} of {len(seen)} public functions and initializers lack Parameters or Returns")


if __name__ == "__main__":
    main(sys.argv[1])
